//! What the chosen network model reads of `[network]`. The flow model (`network.model =
//! "flow"`, docs/flow.md) moves each message as a flow over the routers' routes, without
//! their buffers, virtual channels or queues: the keys of those, which only the packet model
//! reads, are ignored by it, and each one the scenario gives is a warning that names it and
//! says why (a warning, not an error, so that one sweep can compare both models on one
//! scenario); what only the packet model needs of them (a buffer of a whole packet, enough
//! virtual channels for the routing's classes) is not asked of a flow scenario.

use super::problems::Problems;
use super::{NetworkConfig, NetworkModel, RouterKind};
use crate::units::Bytes;

/// The keys of `[network]` only the packet model reads, each with what it sets.
pub(crate) const PACKET_ONLY: [(&str, &str); 4] = [
    ("vcs", "the routers' virtual channels"),
    ("router", "how routers queue packets"),
    (
        "buffer_bytes",
        "the routers' input buffers and the NICs' receive buffers",
    ),
    ("output_buffer_bytes", "the routers' output buffers"),
];

/// The warnings for the keys of `given` (the `[network]` keys the scenario gives, from the
/// file or `--set`) that `net`'s model ignores.
pub(super) fn ignored(net: &NetworkConfig, given: &[String]) -> Vec<String> {
    if net.model != NetworkModel::Flow {
        return Vec::new();
    }
    PACKET_ONLY
        .iter()
        .filter(|(key, _)| given.iter().any(|g| g == key))
        .map(|(key, what)| {
            format!(
                "network.{key} is ignored: the flow model (network.model = \"flow\") has no \
                 buffers, virtual channels or router queues, and {key} sets {what} (the packet \
                 model's; docs/flow.md)"
            )
        })
        .collect()
}

/// The buffers' keys: within what the model counts (32 bits of bytes, 31 for an output
/// buffer), and, for the packet model, each able to hold one whole packet (virtual
/// cut-through), output buffers only where a crossbar is. The flow model has no buffers: it
/// asks nothing more of keys it ignores.
pub(super) fn buffers(net: &NetworkConfig, p: &mut Problems) {
    let packets = net.model == NetworkModel::Packet;
    let packet = net.mtu.0.saturating_add(net.header_bytes.0);
    let (most, most_ob) = (Bytes(u32::MAX as u64), Bytes(u32::MAX as u64 / 2));
    if packets && net.buffer_bytes.0 < packet {
        p.key(
            "network.buffer_bytes",
            format!(
                "{} cannot hold one whole packet of {} (mtu + header_bytes); \
                 virtual cut-through needs at least that",
                net.buffer_bytes,
                Bytes(packet)
            ),
        );
    } else if net.buffer_bytes > most {
        p.key(
            "network.buffer_bytes",
            format!(
                "{} is more than a buffer may hold in this model, {most} ({} bytes)",
                net.buffer_bytes, most.0
            ),
        );
    }
    let ob = net.output_buffer_bytes.0;
    if packets && ob != 0 && ob < packet {
        p.key(
            "network.output_buffer_bytes",
            format!(
                "{} cannot hold one whole packet of {} (mtu + header_bytes); give 0 for \
                 no output buffers, or at least that",
                net.output_buffer_bytes,
                Bytes(packet)
            ),
        );
    } else if net.output_buffer_bytes > most_ob {
        p.key(
            "network.output_buffer_bytes",
            format!(
                "{} is more than an output buffer may hold in this model, {most_ob} ({} \
                 bytes)",
                net.output_buffer_bytes, most_ob.0
            ),
        );
    }
    if packets && ob != 0 && net.router == RouterKind::OutputQueued {
        p.key(
            "network.output_buffer_bytes",
            "an output-queued router has no crossbar to put output buffers after; \
             use router = \"input_queued\" or leave output_buffer_bytes at 0",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flow_model_names_the_router_keys_it_ignores() {
        let mut net = NetworkConfig::default();
        let given = ["vcs".to_string(), "router".into(), "dims".into()];
        assert!(
            ignored(&net, &given).is_empty(),
            "the packet model reads them"
        );
        net.model = NetworkModel::Flow;
        let w = ignored(&net, &given);
        assert_eq!(w.len(), 2);
        assert!(w[0].starts_with("network.vcs is ignored: the flow model"));
        assert!(w[1].starts_with("network.router is ignored"));
    }
}
