// Command restcache-go is the Go subject of RESTCache (../openapi.yaml): the command line, the
// HTTP server, and a graceful shutdown on SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the service could not do its job (store, port)
	exitUsage   = 2 // bad command line
)

const usage = "usage: restcache-go --port P --store sqlite:<path>|postgres://user@host:port/db [--host H] [--pool N]"

// options is the parsed command line.
type options struct {
	host  string
	port  int
	store string
	pool  int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx ends, then shuts down gracefully; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "restcache-go: %v (%s)\n", err, usage)
		return exitUsage
	}
	logger := log.New(stderr, "restcache-go: ", log.LstdFlags)

	openCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	store, err := openStore(openCtx, opts.store, opts.pool)
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "restcache-go: cannot open store %s: %s\n", redact(opts.store), oneLine(err))
		return exitFailure
	}
	defer store.Close()

	addr := net.JoinHostPort(opts.host, strconv.Itoa(opts.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "restcache-go: cannot listen on %s: %s\n", addr, oneLine(err))
		return exitFailure
	}
	srv := &http.Server{
		Handler:           newHandler(store, logger),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          logger,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Printf("listening on %s, store %s, pool %d", ln.Addr(), redact(opts.store), opts.pool)

	select {
	case err := <-served:
		logger.Printf("server stopped: %v", err)
		return exitFailure
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		logger.Printf("shutdown: %v", err)
		return exitFailure
	}
	return exitOK
}

// parseArgs reads the flags; every problem is one error, no usage text.
func parseArgs(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("restcache-go", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.port, "port", 0, "port to listen on (required)")
	fs.StringVar(&o.store, "store", "", "sqlite:<path> or postgres://user@host:port/db (required)")
	fs.IntVar(&o.pool, "pool", 16, "store connection pool size")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.port < 1 || o.port > 65535:
		return o, fmt.Errorf("--port must be 1 to 65535, got %d", o.port)
	case o.pool < 1:
		return o, fmt.Errorf("--pool must be at least 1, got %d", o.pool)
	case o.store == "":
		return o, errors.New("--store is required")
	case strings.HasPrefix(o.store, "sqlite:"):
		if p := strings.TrimPrefix(o.store, "sqlite:"); p == "" || strings.Contains(p, "?") {
			return o, fmt.Errorf("--store sqlite:<path> needs a path without '?', got %q", o.store)
		}
	case strings.HasPrefix(o.store, "postgres://"), strings.HasPrefix(o.store, "postgresql://"):
	default:
		return o, fmt.Errorf("--store must be sqlite:<path> or postgres://..., got %q", redact(o.store))
	}
	return o, nil
}

// redact hides a password in a store URL.
func redact(store string) string {
	if u, err := url.Parse(store); err == nil && u.User != nil {
		return u.Redacted()
	}
	return store
}

// oneLine folds an error's message onto one line (pgx's connect errors span several).
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
