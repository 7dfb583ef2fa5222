//! What the chosen network model reads of `[network]`. The flow model (`network.model =
//! "flow"`, docs/flow.md) moves each message as a flow over the routers' routes, without
//! their buffers, virtual channels or queues: the keys of those, which only the packet model
//! reads, are ignored by it, and each one the scenario gives is a warning that names it and
//! says why (a warning, not an error, so that one sweep can compare both models on one
//! scenario).

use super::{NetworkConfig, NetworkModel};

/// The keys of `[network]` only the packet model reads, each with what it sets.
pub const PACKET_ONLY: [(&str, &str); 4] = [
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
