//! Allocation counting for the harness's `*_allocs` and `*_alloc_bytes` metrics, as Go's
//! `-benchmem` and JMH's gc profiler report them: the binary installs [`CountingAllocator`] as
//! its global allocator and the harness reads [`snapshot`] around one operation. Two relaxed
//! atomic adds per allocation are the whole cost on the timed path.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The system allocator, counting allocation calls and requested bytes.
pub struct CountingAllocator;

static CALLS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn count(bytes: usize) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only atomics.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        INSTALLED.store(true, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    /// A growing `Vec` reallocates; like Go's runtime, count the new block as an allocation.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocation calls and bytes so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocCount {
    pub calls: u64,
    pub bytes: u64,
}

/// The counters, or `None` when [`CountingAllocator`] is not the global allocator (unit tests).
pub fn snapshot() -> Option<AllocCount> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| AllocCount { calls: CALLS.load(Ordering::Relaxed), bytes: BYTES.load(Ordering::Relaxed) })
}

/// What `op` allocates on this thread's watch (the harness is single-threaded).
pub fn during(op: impl FnOnce()) -> Option<AllocCount> {
    let before = snapshot()?;
    op();
    let after = snapshot()?;
    Some(AllocCount { calls: after.calls - before.calls, bytes: after.bytes - before.bytes })
}
