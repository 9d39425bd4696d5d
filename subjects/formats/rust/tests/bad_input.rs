//! Every file of the bad-input corpus (`vectors/bad/`) through every decoder, as every dataset.
//! A decoder must return `Ok` or `Err`: a panic, a decode still running after the time limit or
//! an allocation above the cap fails the test, naming the input. Panics are caught and reported
//! here, never turned into errors inside a codec, so a library bug stays visible.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use formats_rust::codecs::CODECS;
use formats_rust::dataset::DatasetKind;
use formats_rust::vectors::{self, BAD_DIR};

/// Largest single allocation any decode may request. The largest seen on this corpus is 1 MiB
/// (serde's cap on preallocating for a claimed length); a decoder that trusts a forged length
/// asks for gigabytes.
const ALLOCATION_CAP_BYTES: usize = 16 << 20;

/// Generous for a debug build on a loaded 2-core machine; a real hang never finishes.
const DECODE_TIME_LIMIT: Duration = Duration::from_secs(20);

/// (file, codec, why): inputs that abort the whole process inside a library (a stack overflow is
/// not a panic and cannot be caught), so they cannot run in-process with the rest. They stay in
/// the corpus, are listed when the test runs, and `known_crashes_still_crash` re-runs each in a
/// child process: once the library is fixed that test fails and asks for the entry to go.
const KNOWN_CRASHES: &[(&str, &str, &str)] = &[(
    "bad/bson.deep-nesting",
    "bson",
    "bson 3.1.0 deserializes embedded documents recursively with no depth limit, so 20 000 levels \
     overflow an 8 MiB stack (mongodb/bson-rust#680; a limit of 200 is merged upstream in #694, \
     not yet released)",
)];

fn known_crash(file: &str, codec: &str) -> Option<&'static str> {
    KNOWN_CRASHES.iter().find(|(f, c, _)| *f == file && *c == codec).map(|(_, _, why)| *why)
}

/// Records the largest allocation request since the last reset. The decodes run one at a time,
/// so the figure belongs to the input under test (the only other test in this binary allocates
/// a few KB).
struct PeakRequest;

static LARGEST_REQUEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for PeakRequest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST_REQUEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST_REQUEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST_REQUEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: PeakRequest = PeakRequest;

#[test]
fn no_decoder_panics_hangs_or_over_allocates_on_bad_input() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors");
    let corpus = vectors::bad_corpus().unwrap();
    // The committed corpus is what other languages' tests read: it must be this one.
    for file in &corpus {
        let committed = std::fs::read(dir.join(&file.name)).unwrap_or_else(|e| panic!("{}: {e}", file.name));
        assert!(
            committed == file.bytes,
            "{} is stale: run `formats-rust vectors --write subjects/formats/vectors`",
            file.name
        );
    }
    assert!(corpus.iter().all(|f| f.name.starts_with(BAD_DIR)));

    let mut failures = Vec::new();
    let mut decodes = 0;
    for file in &corpus {
        for codec in CODECS {
            if let Some(why) = known_crash(&file.name, codec.id()) {
                eprintln!("skipped {} → {}: known library crash: {why}", file.name, codec.id());
                continue;
            }
            // Listing41 decodes with Users' types and decoders: one of the two is enough.
            for kind in DatasetKind::ALL.into_iter().filter(|k| k.shape() == *k) {
                decodes += 1;
                let case = format!("{} → {} as {}", file.name, codec.id(), kind.id());
                let bytes = file.bytes.clone();
                let (done, result) = mpsc::channel();
                LARGEST_REQUEST.store(0, Ordering::Relaxed);
                let decode = std::thread::Builder::new()
                    .name(case.clone())
                    .stack_size(8 << 20)
                    .spawn(move || {
                        // Codecs are stateless, so nothing half-updated is seen after a panic.
                        let decode = AssertUnwindSafe(|| codec.decode(&bytes, kind).is_ok());
                        let outcome = std::panic::catch_unwind(decode);
                        done.send(outcome.map_err(|p| panic_message(&*p))).ok();
                    })
                    .unwrap();
                match result.recv_timeout(DECODE_TIME_LIMIT) {
                    Ok(Ok(_)) => {
                        decode.join().ok();
                    }
                    Ok(Err(message)) => {
                        decode.join().ok();
                        failures.push(format!("{case}: panicked: {message}"));
                    }
                    Err(_) => {
                        // The thread cannot be stopped; report it and let the process end with it.
                        failures.push(format!("{case}: still running after {DECODE_TIME_LIMIT:?}"));
                        continue;
                    }
                }
                let peak = LARGEST_REQUEST.load(Ordering::Relaxed);
                if peak > ALLOCATION_CAP_BYTES {
                    failures.push(format!("{case}: allocated {peak} bytes at once (cap {ALLOCATION_CAP_BYTES})"));
                }
            }
        }
    }
    assert!(decodes > 1000, "corpus too small: {decodes} decodes");
    assert!(failures.is_empty(), "{} of {decodes} decodes misbehaved:\n{}", failures.len(), failures.join("\n"));
}

/// Each known crash still takes its child process down; a clean exit means the library was fixed.
#[test]
fn known_crashes_still_crash() {
    for (file, codec, _) in KNOWN_CRASHES {
        for kind in DatasetKind::ALL.into_iter().filter(|k| k.shape() == *k) {
            let probe = format!("{file}|{codec}|{}", kind.id());
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["crash_probe", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
                .env(PROBE_ENV, &probe)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && stderr.contains("overflowed its stack"),
                "{probe} no longer crashes: remove it from KNOWN_CRASHES (exit {:?}, stderr: {stderr})",
                out.status
            );
        }
    }
}

const PROBE_ENV: &str = "FORMATS_RUST_CRASH_PROBE";

/// One decode named by `FORMATS_RUST_CRASH_PROBE=file|codec|dataset`, on the same 8 MiB stack as
/// the main test; only `known_crashes_still_crash` runs it, in a child process.
#[test]
#[ignore = "run by known_crashes_still_crash in a child process"]
fn crash_probe() {
    let probe = std::env::var(PROBE_ENV).expect("set by known_crashes_still_crash");
    let mut parts = probe.split('|');
    let (file, codec, kind) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    let bytes = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors").join(file)).unwrap();
    let codec = formats_rust::codecs::codec(codec).unwrap();
    let kind = DatasetKind::from_id(kind).unwrap();
    let decode = std::thread::Builder::new().stack_size(8 << 20).spawn(move || codec.decode(&bytes, kind).is_ok());
    decode.unwrap().join().ok();
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into())
}
