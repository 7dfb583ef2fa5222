//! Where there are no POSIX signals, the ranks' coroutines keep the limits' count hook on
//! (see `watchdog.rs` for what the watchdog saves on Unix).

use mlua::ffi::lua_State;

/// Never made: [`Watchdog::start`] says the platform cannot.
pub(crate) enum Watchdog {}

impl Watchdog {
    pub(crate) fn start(_step: u64) -> std::io::Result<Watchdog> {
        Err(std::io::ErrorKind::Unsupported.into())
    }

    pub(crate) fn hook_at_once(&self) {
        match *self {}
    }

    pub(crate) fn begin(&self, _co: *mut lua_State) {
        match *self {}
    }

    /// # Safety
    /// None needed: there is no watchdog.
    pub(crate) unsafe fn end(&self, _co: *mut lua_State) {
        match *self {}
    }
}

/// # Safety
/// Never called: there is no watchdog to adopt a coroutine.
pub(crate) unsafe fn adopt(_co: *mut lua_State) {}
