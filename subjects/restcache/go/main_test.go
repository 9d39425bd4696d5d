package main

// Tests of the command: flags and exit codes, an unreachable store, serving and shutting down.

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunFails: bad flags exit 2, a store that cannot be opened exits 1, each with one line.
func TestRunFails(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flags", nil, exitUsage, "--port must be"},
		{"no store", []string{"--port", "8080"}, exitUsage, "--store is required"},
		{"port 0", []string{"--port", "0", "--store", "sqlite:x.db"}, exitUsage, "--port must be"},
		{"port too big", []string{"--port", "65536", "--store", "sqlite:x.db"}, exitUsage, "--port must be"},
		{"port not a number", []string{"--port", "http", "--store", "sqlite:x.db"}, exitUsage, "invalid value"},
		{"pool 0", []string{"--port", "8080", "--store", "sqlite:x.db", "--pool", "0"}, exitUsage, "--pool must be"},
		{"unknown flag", []string{"--port", "8080", "--store", "sqlite:x.db", "--verbose"}, exitUsage, "not defined"},
		{"argument", []string{"--port", "8080", "--store", "sqlite:x.db", "extra"}, exitUsage, "unexpected argument"},
		{"unknown store", []string{"--port", "8080", "--store", "mysql://u:secret@h/db"}, exitUsage, "mysql://u:xxxxx@h/db"},
		{"empty sqlite path", []string{"--port", "8080", "--store", "sqlite:"}, exitUsage, "needs a path"},
		{"sqlite dir missing", []string{"--port", "8080", "--store", "sqlite:" + filepath.Join(dir, "no", "such", "x.db")},
			exitFailure, "cannot open store sqlite:"},
		{"postgres unreachable", []string{"--port", "8080", "--store", "postgres://u:secret@127.0.0.1:1/db"},
			exitFailure, "cannot open store postgres://u:xxxxx@127.0.0.1:1/db: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			out := stderr.String()
			if code != c.code || !strings.HasPrefix(out, "restcache-go: ") || !strings.Contains(out, c.want) ||
				strings.Count(out, "\n") != 1 || strings.Contains(out, "secret") {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, out, c.code, c.want)
			}
		})
	}
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRunServes: the command creates the SQLite file, answers /health, and exits 0 when its
// context ends (main ends it on SIGTERM or SIGINT).
func TestRunServes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cache.db")
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--port", strconv.Itoa(port), "--store", "sqlite:" + db, "--pool", "2"}, os.Stdout, &stderr)
	}()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no 200 from /health: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(base + "/api/")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /api/: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("SQLite file: %v", err)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after shutdown, stderr:\n%s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after the context ended")
	}
}
