// Renders the manifests in templates/ for a run of N workers and validates every document
// against the Kubernetes API types themselves (strict decoding: an unknown or misspelt field is
// an error, as the API server's strict field validation makes it), so a cluster is not needed to
// know they would be accepted.
package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

//go:embed templates/*.yaml templates/load/*.yaml templates/suite/*.yaml
var templates embed.FS

// Options are what a run sets; Render fills the rest.
type Options struct {
	// Suite, when set, runs that suite of the image with every row's load from the workers
	// (templates/suite); else the workers load one URL for a duration (templates/load).
	Suite   string
	Profile string
	Image   string
	// WorkerImage runs the workers and the merge: wirebench alone (deploy/image.sh); Image when
	// empty.
	WorkerImage  string
	URL          string
	Workers      int
	Connections  int
	DurationS    float64
	StartAt      time.Time
	RunID        string
	SubjectCPU   string
	WorkerCPU    string
	StorageClass string
}

// values is what the templates see.
type values struct {
	Options
	StartAt    string
	WorkerDirs []string
}

// Check refuses options no cluster run can use, each with the flag to change.
func (o Options) Check() error {
	if errs := validation.IsDNS1123Label(o.RunID); len(errs) > 0 {
		return fmt.Errorf("-run-id %q: %s", o.RunID, strings.Join(errs, "; "))
	}
	switch {
	case o.Workers < 1:
		return fmt.Errorf("-workers %d: at least 1", o.Workers)
	case o.Image == "":
		return errors.New("-image: the image with wirebench in it (deploy/Containerfile)")
	}
	if o.Suite != "" {
		// The run's command passes them to the shell unquoted.
		for flag, v := range map[string]string{"-suite": o.Suite, "-profile": o.Profile} {
			if v == "" || strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
				return fmt.Errorf("%s %q: a name of lower-case letters, digits, - and _", flag, v)
			}
		}
		return nil
	}
	switch {
	case o.Connections < o.Workers:
		return fmt.Errorf("-connections %d: at least one per worker (%d)", o.Connections, o.Workers)
	case o.DurationS <= 0:
		return fmt.Errorf("-duration %g: must be positive", o.DurationS)
	case o.URL == "":
		return errors.New("-url: the service to load, as the workers reach it")
	}
	return nil
}

// mode is the templates' folder beside the shared ones.
func (o Options) mode() string {
	if o.Suite != "" {
		return "suite"
	}
	return "load"
}

// funcs are the templates' own: json quotes a string as YAML reads it back unchanged (a JSON
// string is a YAML flow scalar), whatever a URL holds.
var funcs = template.FuncMap{"json": func(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}}

// Render returns the manifests, one file each, validated: results, subject, workers and merge
// for a load; results, suite, workers and reader for a suite.
func Render(o Options) (map[string]string, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.WorkerImage == "" {
		o.WorkerImage = o.Image
	}
	v := values{Options: o, StartAt: fmt.Sprintf("%.3f", float64(o.StartAt.UnixMilli())/1e3)}
	for i := 0; i < o.Workers; i++ {
		v.WorkerDirs = append(v.WorkerDirs, fmt.Sprintf("/results/%s/w%d", o.RunID, i))
	}
	var paths []string
	for _, dir := range []string{"templates", "templates/" + o.mode()} {
		names, err := templates.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if !n.IsDir() {
				paths = append(paths, dir+"/"+n.Name())
			}
		}
	}
	out := map[string]string{}
	for _, p := range paths {
		n := path.Base(p)
		t, err := template.New(n).Option("missingkey=error").Funcs(funcs).ParseFS(templates, p)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, v); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if err := Validate(b.String(), o); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out[n] = b.String()
	}
	return out, nil
}

// Documents splits a multi-document YAML stream.
func Documents(text string) []string {
	var docs []string
	for _, d := range strings.Split("\n"+text, "\n---\n") {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

func stripComments(d string) string {
	var lines []string
	for _, l := range strings.Split(d, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// Validate decodes every document of text strictly into the API type its kind names and checks
// what the run depends on: names, the Indexed Job's shape, the anti-affinity, the merge's inputs.
func Validate(text string, o Options) error {
	for _, doc := range Documents(text) {
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return err
		}
		var err error
		switch meta.APIVersion + " " + meta.Kind {
		case "apps/v1 Deployment":
			var d appsv1.Deployment
			if err = yaml.UnmarshalStrict([]byte(doc), &d); err == nil {
				err = checkDeployment(&d)
			}
		case "v1 Service":
			var s corev1.Service
			err = yaml.UnmarshalStrict([]byte(doc), &s)
			if err == nil {
				err = checkName(s.Name)
			}
		case "v1 PersistentVolumeClaim":
			var p corev1.PersistentVolumeClaim
			if err = yaml.UnmarshalStrict([]byte(doc), &p); err == nil && !hasMode(p.Spec.AccessModes, corev1.ReadWriteMany) {
				err = errors.New("the results volume must be ReadWriteMany: every worker's node writes to it")
			}
		case "v1 Pod":
			var p corev1.Pod
			if err = yaml.UnmarshalStrict([]byte(doc), &p); err == nil {
				err = checkName(p.Name)
			}
		case "batch/v1 Job":
			var j batchv1.Job
			if err = yaml.UnmarshalStrict([]byte(doc), &j); err == nil {
				err = checkJob(&j, o)
			}
		default:
			err = fmt.Errorf("unexpected kind %q of %q", meta.Kind, meta.APIVersion)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", meta.Kind, err)
		}
	}
	return nil
}

func hasMode(modes []corev1.PersistentVolumeAccessMode, want corev1.PersistentVolumeAccessMode) bool {
	for _, m := range modes {
		if m == want {
			return true
		}
	}
	return false
}

func checkName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("name %q: %s", name, strings.Join(errs, "; "))
	}
	return nil
}

func checkDeployment(d *appsv1.Deployment) error {
	if err := checkName(d.Name); err != nil {
		return err
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			return fmt.Errorf("the selector's %s=%s is not on the pod template", k, v)
		}
	}
	return nil
}

func checkJob(j *batchv1.Job, o Options) error {
	if err := checkName(j.Name); err != nil {
		return err
	}
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		return errors.New("restartPolicy must be Never: a restarted worker would measure twice")
	}
	c := j.Spec.Template.Spec.Containers
	if len(c) != 1 {
		return fmt.Errorf("%d containers, want 1", len(c))
	}
	command := strings.Join(append(append([]string{}, c[0].Command...), c[0].Args...), " ")
	name := j.Labels["app.kubernetes.io/name"]
	if name == "wirebench-worker" || name == "wirebench-merge" {
		// The worker image has no shell and no other program.
		if len(c[0].Command) == 0 || c[0].Command[0] != "wirebench" {
			return fmt.Errorf("the %s runs wirebench itself (its image has nothing else): %s", name, command)
		}
		if want := o.WorkerImage; want != "" && c[0].Image != want {
			return fmt.Errorf("the %s's image is %s, not -worker-image %s", name, c[0].Image, want)
		}
	}
	if name == "wirebench-worker" {
		if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
			return errors.New("the workers must be an Indexed Job: JOB_COMPLETION_INDEX is the worker index")
		}
		if j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != int32(o.Workers) || *j.Spec.Parallelism != int32(o.Workers) {
			return fmt.Errorf("completions and parallelism must both be %d", o.Workers)
		}
		a := j.Spec.Template.Spec.Affinity
		if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 ||
			a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchLabels["app.kubernetes.io/name"] != "wirebench-subject" {
			return errors.New("the workers must keep off the subject's node (required pod anti-affinity)")
		}
		index := "--worker $(JOB_COMPLETION_INDEX)/" + fmt.Sprint(o.Workers)
		wants := []string{"wirebench load ", index, "--start-at ", "--out /results/" + o.RunID + "/w$(JOB_COMPLETION_INDEX)"}
		if o.Suite != "" {
			wants = []string{"wirebench worker ", index, "--coordinator http://wirebench-coordinator:7070"}
		}
		for _, want := range wants {
			if !strings.Contains(command, want) {
				return fmt.Errorf("the worker's command lacks %s: %s", want, command)
			}
		}
	}
	if name == "wirebench-suite" {
		if j.Spec.Template.Labels["app.kubernetes.io/name"] != "wirebench-subject" {
			return errors.New("the suite's pod must carry the subject's label: the workers keep off its node, the coordinator's Service selects it")
		}
		for _, want := range []string{"--workers " + fmt.Sprint(o.Workers) + " ", "--advertise \"$POD_IP\"", "--listen 0.0.0.0:7070"} {
			if !strings.Contains(command, want) {
				return fmt.Errorf("the suite's command lacks %s: %s", want, command)
			}
		}
		ip := false
		for _, e := range c[0].Env {
			ip = ip || (e.Name == "POD_IP" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP")
		}
		if !ip {
			return errors.New("the suite needs POD_IP from status.podIP: the workers load the subjects at the pod's address")
		}
	}
	if name == "wirebench-merge" {
		var dirs []string
		for _, a := range c[0].Command {
			if strings.HasPrefix(a, "/results/"+o.RunID+"/w") {
				dirs = append(dirs, a)
			}
		}
		sort.Strings(dirs)
		if len(dirs) != o.Workers {
			return fmt.Errorf("the merge reads %d workers' records, want %d", len(dirs), o.Workers)
		}
	}
	return nil
}
