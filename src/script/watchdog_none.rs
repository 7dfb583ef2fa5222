//! Where there are no POSIX signals, the ranks' coroutines keep the limits' count hook on
//! (see `watchdog.rs` for what the watchdog saves on Unix).

use mlua::ffi::lua_State;

/// Never made: [`Watchdog::start`] says the platform cannot.
pub enum Watchdog {}

impl Watchdog {
    pub fn start(_step: u64) -> std::io::Result<Watchdog> {
        Err(std::io::ErrorKind::Unsupported.into())
    }

    pub fn hook_at_once(&self) {
        match *self {}
    }

    pub fn begin(&self, _co: *mut lua_State) {
        match *self {}
    }

    /// # Safety
    /// None needed: there is no watchdog.
    pub unsafe fn end(&self, _co: *mut lua_State) {
        match *self {}
    }
}

/// # Safety
/// Never called: there is no watchdog to adopt a coroutine.
pub unsafe fn adopt(_co: *mut lua_State) {}
