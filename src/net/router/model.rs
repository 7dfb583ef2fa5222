//! Router models (`network.router`, `network.output_buffer_bytes`; docs/model.md §3, NSIM
//! §3.1): what sets one router apart from another, a type each behind [`RouterModel`].
//!
//! The network's hot code (looking at an output, sending, putting an arrival in place) is
//! generic over the model, and compiled once for each: a model's rules are constants and
//! inlined functions of its type, so the code of one model carries no test of another's, and
//! nothing on the hot path is a virtual call. The engine enters the network through a few
//! public methods (an event's handler, an epoch's arrivals, a NIC's injection), each of which
//! picks the model's code once with [`with_model!`].
//!
//! A new model is a type with its `impl RouterModel` (a file of its own when it has rules of
//! its own) and a line in [`Model`] and [`with_model!`]; its name for scenarios is a variant
//! of [`RouterKind`].

use super::*;

/// What one router model decides. Every method is inlined into the code generic over it.
pub(crate) trait RouterModel {
    /// Input buffers are FIFOs (`input.rs`): only the first packet of each virtual channel of
    /// an input buffer is in its output's queue, in the order the inputs asked
    /// (`Packet::asked`), and it leaves only when its input's crossbar port is free, so that a
    /// packet behind a blocked one waits (head-of-line blocking). Otherwise a packet joins
    /// its output's queue as it arrives, in the order it is ready.
    const INPUT_FIFOS: bool;
    /// An output buffer between the crossbar and the link of each router output (`outbuf.rs`):
    /// the crossbar and the link are two stages.
    const OUTPUT_BUFFERS: bool;

    /// The time an output's queue is ordered by (ps; ties by [`super::queues::tie`]).
    #[inline(always)]
    fn queue_time(p: &Packet) -> u64 {
        if Self::INPUT_FIFOS {
            p.asked.ps()
        } else {
            p.ready.ps()
        }
    }
}

/// NSIM's router (`"input_queued"`, the default): FIFO input buffers per port and virtual
/// channel, a crossbar that takes at most one packet from each input at a time, granted to
/// the oldest request.
pub(crate) struct InputQueued;

impl RouterModel for InputQueued {
    const INPUT_FIFOS: bool = true;
    const OUTPUT_BUFFERS: bool = false;
}

/// [`InputQueued`] with output buffers (`network.output_buffer_bytes` above 0): the crossbar
/// moves a packet into its output's buffer, and the link sends from there.
pub(crate) struct InputQueuedBuffered;

impl RouterModel for InputQueuedBuffered {
    const INPUT_FIFOS: bool = true;
    const OUTPUT_BUFFERS: bool = true;
}

/// `"output_queued"`: a packet queues at the output it wants as soon as it arrives; no
/// head-of-line blocking and no crossbar conflicts.
pub(crate) struct OutputQueued;

impl RouterModel for OutputQueued {
    const INPUT_FIFOS: bool = false;
    const OUTPUT_BUFFERS: bool = false;
}

/// `with_model!(model, M => expr)`: `expr` with the type `M` of [`Model`] `model`, one match.
macro_rules! with_model {
    ($model:expr, $m:ident => $body:expr) => {
        match $model {
            $crate::net::router::model::Model::InputQueued => {
                type $m = $crate::net::router::model::InputQueued;
                $body
            }
            $crate::net::router::model::Model::InputQueuedBuffered => {
                type $m = $crate::net::router::model::InputQueuedBuffered;
                $body
            }
            $crate::net::router::model::Model::OutputQueued => {
                type $m = $crate::net::router::model::OutputQueued;
                $body
            }
        }
    };
}
pub(crate) use with_model;

/// The model a network runs, chosen once from its configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Model {
    /// [`InputQueued`].
    InputQueued,
    /// [`InputQueuedBuffered`].
    InputQueuedBuffered,
    /// [`OutputQueued`].
    OutputQueued,
}

impl Model {
    /// The model of `router`, with output buffers of `ob_bytes` bytes (0: none; only an
    /// input-queued router has them).
    pub(crate) fn of(router: RouterKind, ob_bytes: u32) -> Model {
        match router {
            RouterKind::InputQueued if ob_bytes > 0 => Model::InputQueuedBuffered,
            RouterKind::InputQueued => Model::InputQueued,
            RouterKind::OutputQueued => Model::OutputQueued,
        }
    }

    /// [`RouterModel::INPUT_FIFOS`] of the model, for code that is not generic over it.
    pub(crate) fn input_fifos(self) -> bool {
        with_model!(self, M => M::INPUT_FIFOS)
    }

    /// [`RouterModel::OUTPUT_BUFFERS`] of the model, for code that is not generic over it.
    pub(crate) fn output_buffers(self) -> bool {
        with_model!(self, M => M::OUTPUT_BUFFERS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_configuration_picks_its_model_and_its_rules() {
        let iq = Model::of(RouterKind::InputQueued, 0);
        let ob = Model::of(RouterKind::InputQueued, 4096);
        let oq = Model::of(RouterKind::OutputQueued, 0);
        assert_eq!(
            (iq, ob, oq),
            (
                Model::InputQueued,
                Model::InputQueuedBuffered,
                Model::OutputQueued
            )
        );
        assert_eq!(
            [iq, ob, oq].map(|m| (m.input_fifos(), m.output_buffers())),
            [(true, false), (true, true), (false, false)]
        );
        // an input-queued model orders by when a packet asked, an output-queued one by ready
        let mut p = Packet::new(0, 64, 0, 1);
        (p.asked, p.ready) = (Time(5), Time(9));
        assert_eq!(
            (InputQueued::queue_time(&p), OutputQueued::queue_time(&p)),
            (5, 9)
        );
    }
}
