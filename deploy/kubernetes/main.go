// wirebench-k8s: renders deploy/kubernetes/templates for a run of N workers, validated against
// the Kubernetes API types, into a directory that `kubectl apply -f` takes (README.md beside it).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	o := Options{}
	out := flag.String("out", "rendered", "directory for the manifests")
	lead := flag.Duration("lead", 2*time.Minute, "the workers start measuring this long after rendering (time to schedule and pull)")
	flag.StringVar(&o.Suite, "suite", "", "run this suite of the image, every row's load from the workers (instead of loading -url)")
	flag.StringVar(&o.Profile, "profile", "quick", "with -suite: the suite's profile")
	flag.StringVar(&o.Image, "image", "", "image with wirebench and the subject (deploy/Containerfile)")
	flag.StringVar(&o.WorkerImage, "worker-image", "", "image of the workers and the merge: wirebench alone (deploy/image.sh); default -image")
	flag.StringVar(&o.URL, "url", "http://wirebench-subject:8080/payload/1024", "what the workers load")
	flag.IntVar(&o.Workers, "workers", 2, "workers (pods of the Indexed Job)")
	flag.IntVar(&o.Connections, "connections", 100, "connections in all, split over the workers")
	flag.Float64Var(&o.DurationS, "duration", 30, "seconds each worker measures")
	flag.StringVar(&o.RunID, "run-id", time.Now().UTC().Format("20060102t150405"), "names the jobs and the results' folder")
	flag.StringVar(&o.SubjectCPU, "subject-cpu", "2", "CPUs of the subject's pod")
	flag.StringVar(&o.WorkerCPU, "worker-cpu", "2", "CPUs of each worker's pod")
	flag.StringVar(&o.StorageClass, "storage-class", "", "a ReadWriteMany storage class for the results (default: the cluster's)")
	flag.Parse()
	o.StartAt = time.Now().Add(*lead)
	files, err := Render(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wirebench-k8s:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "wirebench-k8s:", err)
		os.Exit(1)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(*out, name), []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "wirebench-k8s:", err)
			os.Exit(1)
		}
	}
	if o.Suite != "" {
		fmt.Printf("%s: suite %s (%s) loaded by %d workers (run %s)\n", *out, o.Suite, o.Profile, o.Workers, o.RunID)
	} else {
		fmt.Printf("%s: %d workers start at %s (run %s)\n", *out, o.Workers, o.StartAt.UTC().Format(time.RFC3339), o.RunID)
	}
}
