package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

func options(n int) Options {
	return Options{
		Image: "registry.example/wirebench:1", URL: "http://wirebench-subject:8080/payload/1024",
		Workers: n, Connections: 64, DurationS: 30, StartAt: time.Unix(1_800_000_000, 0),
		RunID: "run1", SubjectCPU: "2", WorkerCPU: "2",
	}
}

// The manifests for 1, 4 and 16 workers decode strictly into the API types and keep the run's
// shape: an Indexed Job of N pods, each worker i/N, the merge reading N records.
func TestRenderedManifestsAreValidForEveryWorkerCount(t *testing.T) {
	for _, n := range []int{1, 4, 16} {
		files, err := Render(options(n))
		if err != nil {
			t.Fatalf("%d workers: %v", n, err)
		}
		if len(files) != 4 {
			t.Fatalf("%d workers: %d files", n, len(files))
		}
		w := files["workers.yaml"]
		for _, want := range []string{"completionMode: Indexed", "completions: " + strconv.Itoa(n), "parallelism: " + strconv.Itoa(n), "- --start-at\n            - \"1800000000.000\""} {
			if !strings.Contains(w, want) {
				t.Errorf("%d workers: workers.yaml lacks %q", n, want)
			}
		}
		if got := strings.Count(files["merge.yaml"], "/results/run1/w"); got != n {
			t.Errorf("%d workers: the merge names %d records", n, got)
		}
	}
}

// Strict decoding is what would catch a manifest the API server refuses: a misspelt field, a
// wrong type, a Job that is not Indexed.
func TestValidateRefusesWhatAClusterWould(t *testing.T) {
	files, err := Render(options(4))
	if err != nil {
		t.Fatal(err)
	}
	w := files["workers.yaml"]
	for name, broken := range map[string]string{
		"a misspelt field":   strings.Replace(w, "parallelism:", "paralellism:", 1),
		"a wrong type":       strings.Replace(w, "backoffLimit: 0", "backoffLimit: none", 1),
		"not Indexed":        strings.Replace(w, "completionMode: Indexed", "completionMode: NonIndexed", 1),
		"another count":      strings.Replace(w, "completions: 4", "completions: 3", 1),
		"restarted pods":     strings.Replace(w, "restartPolicy: Never", "restartPolicy: OnFailure", 1),
		"no anti-affinity":   strings.Replace(w, "app.kubernetes.io/name: wirebench-subject", "app.kubernetes.io/name: other", 1),
		"an upper-case name": strings.Replace(w, "name: wirebench-workers-run1", "name: Wirebench", 1),
		"another index":      strings.Replace(w, "$(JOB_COMPLETION_INDEX)/4", "$JOB_COMPLETION_INDEX/4", 1),
		"a shell":            strings.Replace(w, "- wirebench\n", "- sh\n            - -c\n            - wirebench\n", 1),
	} {
		if err := Validate(broken, options(4)); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
	if err := Validate(strings.Replace(files["results.yaml"], `["ReadWriteMany"]`, `["ReadWriteOnce"]`, 1), options(4)); err == nil {
		t.Error("a results volume only one node can write was accepted")
	}
}

// A suite's run: the suite's pod serves the workers and carries the subject's label; the workers
// take their loads from it; the reader mounts the results.
func TestSuiteManifestsAreValidForEveryWorkerCount(t *testing.T) {
	for _, n := range []int{1, 4, 16} {
		o := options(n)
		o.Suite, o.Profile = "protocols", "quick"
		files, err := Render(o)
		if err != nil {
			t.Fatalf("%d workers: %v", n, err)
		}
		for _, name := range []string{"results.yaml", "suite.yaml", "workers.yaml", "reader.yaml"} {
			if files[name] == "" {
				t.Fatalf("%d workers: no %s (have %d files)", n, name, len(files))
			}
		}
		if len(files) != 4 {
			t.Fatalf("%d workers: %d files", n, len(files))
		}
		if !strings.Contains(files["suite.yaml"], "wirebench run protocols --profile quick") {
			t.Errorf("%d workers: suite.yaml runs another suite", n)
		}
		w := files["workers.yaml"]
		if strings.Contains(w, "--start-at") || !strings.Contains(w, "completions: "+strconv.Itoa(n)) {
			t.Errorf("%d workers: workers.yaml is not the suite's", n)
		}
		broken := map[string]string{
			"no pod address":         strings.Replace(files["suite.yaml"], "fieldPath: status.podIP", "fieldPath: status.hostIP", 1),
			"another worker count":   strings.Replace(files["suite.yaml"], "--workers "+strconv.Itoa(n), "--workers 99", 1),
			"a worker loading a URL": strings.Replace(w, "- worker\n", "- load\n", 1),
			"a worker in a shell":    strings.Replace(w, "- wirebench\n", "- sh\n            - -c\n            - wirebench\n", 1),
			"a misspelt reader":      strings.Replace(files["reader.yaml"], "restartPolicy:", "restartPolicyy:", 1),
		}
		for name, text := range broken {
			if err := Validate(text, o); err == nil {
				t.Errorf("%d workers: %s was accepted", n, name)
			}
		}
	}
}

func TestOptionsAreCheckedFirst(t *testing.T) {
	for name, o := range map[string]Options{
		"no workers":               func() Options { o := options(1); o.Workers = 0; return o }(),
		"fewer connections":        func() Options { o := options(16); o.Connections = 8; return o }(),
		"no image":                 func() Options { o := options(1); o.Image = ""; return o }(),
		"a run id with a space":    func() Options { o := options(1); o.RunID = "a b"; return o }(),
		"a suite the shell splits": func() Options { o := options(1); o.Suite, o.Profile = "protocols; rm", "quick"; return o }(),
		"a suite without profile":  func() Options { o := options(1); o.Suite = "protocols"; return o }(),
	} {
		if _, err := Render(o); err == nil {
			t.Errorf("%s was rendered", name)
		}
	}
}

// The workers and the merge run the worker image (wirebench alone, no shell), the subject and a
// suite's run the full one; a URL reaches the worker's command unchanged whatever it holds.
func TestWorkersRunTheWorkerImage(t *testing.T) {
	o := options(4)
	o.WorkerImage = "registry.example/wirebench-worker:1"
	o.URL = `http://svc:8080/search?q='a b'&x="y"\z`
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"workers.yaml": o.WorkerImage, "merge.yaml": o.WorkerImage, "subject.yaml": o.Image} {
		if !strings.Contains(files[name], "image: "+want+"\n") {
			t.Errorf("%s does not run %s", name, want)
		}
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(files["workers.yaml"]), &job); err != nil {
		t.Fatal(err)
	}
	if got := job.Spec.Template.Spec.Containers[0].Command[2]; got != o.URL {
		t.Errorf("the workers load %q, not %q", got, o.URL)
	}
	if err := Validate(strings.Replace(files["merge.yaml"], o.WorkerImage, o.Image, 1), o); err == nil {
		t.Error("a merge on the full image was accepted with -worker-image set")
	}
	o.Suite, o.Profile = "protocols", "quick"
	if files, err = Render(o); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"workers.yaml": o.WorkerImage, "suite.yaml": o.Image, "reader.yaml": o.Image} {
		if !strings.Contains(files[name], "image: "+want+"\n") {
			t.Errorf("suite: %s does not run %s", name, want)
		}
	}
}
