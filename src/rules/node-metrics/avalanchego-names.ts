/**
 * The metric names AvalancheGo registers, for `avawatch check` to warn about a node-metrics
 * rule watching a name no known version exports (a typo, or a metric renamed by an upgrade).
 *
 * Read from ava-labs/avalanchego at v1.14.2 (6e5acf909c7a16b991142d6b3979bac5699bdb68) and
 * v1.15.0-fuji (e8f9781ee57de048bbfde5be0fa632e9efdf1448), both put together:
 * - NAMES: every lower-case `Name: "…"` of a Go file (the prometheus.*Opts of every metric)
 *   and every name given to `metric.NewAverager`/`NewAveragerWithErrs` (its `_count`/`_sum`),
 *   outside tests and graft/ (coreth and subnet-evm, whose metrics are the VMs'):
 *   `git grep -hoE 'Name:\s*"[a-z][a-z0-9_]*"' <tag> -- '*.go' ':!*_test.go' ':!graft/*' ':!tests/*'`.
 * - NAMESPACES: the ones node/node.go and chains/manager.go register (`avalanche_<namespace>_`),
 *   whose names are in NAMES.
 * - The C-Chain after Helicon (v1.15.0-fuji): the transition VM registers its own gatherer as
 *   "transition" under the EVM's (vms/transitionvm/vm.go), SAE registers "sae"
 *   (vms/saevm/sae/vm.go; saexec/metrics.go and sae/metrics.go name the series) and "cchain"
 *   (vms/saevm/cchain/vm.go): avalanche_evm_transition_sae_<name>, avalanche_evm_transition_cchain_<name>,
 *   names in NAMES (so a typo there is said, though evm itself is OPEN).
 * - OPEN: namespaces whose names are not literals in AvalancheGo's source, so any name under
 *   them is taken: the VMs' (`avalanche_<vm name>_`, constants.VMName: platformvm, avm, evm,
 *   subnetevm, xsvm, or a VM ID for a VM without a name; coreth's come from go-ethereum's
 *   registry, `chain/block/bad/count` → `eth_chain_block_bad_count`), the process namespace
 *   (client_golang's Go and process collectors), the databases' and rpcchainvm (plugin VMs).
 * A name is known when it is `avalanche_<namespace>_<name>` with name in NAMES, or name with a
 * histogram's or summary's `_bucket`, `_sum` or `_count`.
 */
export const NAMESPACES = ['api', 'avalanche', 'benchlist', 'evm_transition_cchain', 'evm_transition_sae', 'handler', 'health', 'meterchainvm', 'meterdagvm', 'network', 'p2p', 'proposervm', 'requests', 'resource_tracker', 'responses', 'snowman', 'stake', 'system_resources', 'upgrade'] as const;

export const OPEN = ['platformvm', 'avm', 'evm', 'subnetevm', 'xsvm', 'process', 'db', 'meterdb', 'rpcchainvm'] as const;

export const NAMES: readonly string[] = [
  'accept_failed', 'accepted_blocks_slot', 'accepted_gas_limit_total', 'accrued_validator_fees',
  'active_l1_validators', 'alive_iterators', 'alive_snapshots', 'average_bandwidth',
  'average_latency', 'bandwidth_throttler_inbound_acquire_latency',
  'bandwidth_throttler_inbound_awaiting_acquire', 'benched_num', 'benched_weight',
  'blk_builds_failed', 'blks_accepted', 'blks_accepted_container_size_sum',
  'blks_build_accept_latency', 'blks_built', 'blks_built_time_skew', 'blks_issued',
  'blks_polls_accepted', 'blks_polls_rejected', 'blks_processing', 'blks_rejected',
  'blks_rejected_container_size_sum', 'block_building_slot', 'block_cache_size', 'blocked',
  'blockers', 'bloomfilter_hit_rate', 'bootstrap_finished', 'bs_accepted', 'bs_accepted_txs',
  'bs_accepted_vts', 'bs_fetched', 'bs_fetched_txs', 'bs_fetched_vts', 'bs_get_ancestors_vtxs',
  'buffer_throttler_inbound_acquire_latency', 'buffer_throttler_inbound_awaiting_acquire',
  'byte_throttler_inbound_acquire_latency', 'byte_throttler_inbound_awaiting_acquire',
  'byte_throttler_inbound_awaiting_release', 'byte_throttler_inbound_remaining_at_large_bytes',
  'byte_throttler_inbound_remaining_validator_bytes', 'bytes', 'bytes_available', 'calls',
  'calls_duration', 'calls_processing', 'checks_failing', 'clock_skew_count', 'clock_skew_sum',
  'codec_compressed_count', 'codec_compressed_duration', 'consensus_latencies', 'count',
  'cpu_usage', 'current_timeout', 'disk_available_percentage', 'disk_available_space',
  'disk_reads', 'disk_writes', 'dropped', 'duration', 'entries', 'eta_execution_complete',
  'excess', 'excessive_cpu', 'execute_block_duration_seconds', 'executed_base_fee',
  'executed_gas_charged_total', 'executed_gas_excess', 'executed_gas_limit_total',
  'execution_queue_blocks', 'execution_queue_duration_seconds', 'execution_queue_gas_limit',
  'expired', 'extra', 'failed_benched', 'fraction', 'gas_available', 'gas_capacity',
  'gas_consumed', 'gas_target', 'gas_time_wall_time_gap_seconds', 'get_ancestors_blks',
  'get_count', 'get_time', 'gossipable_ips', 'hashes', 'height', 'hertz', 'in_memory_blocks',
  'inbound_conn_throttler_allowed', 'inbound_conn_throttler_rate_limited', 'io', 'io_read',
  'io_write', 'issuer_stake', 'last_accepted_height', 'last_accepted_timestamp',
  'last_executed_gas_time_seconds', 'last_executed_height', 'last_settled_height', 'len',
  'level_0_comps', 'local_staked', 'locking_time', 'longest_running', 'lookup', 'max_count',
  'max_verified_height', 'mem_comps', 'message_handling_time', 'message_latencies', 'messages',
  'min_block_delay_seconds', 'msg_count', 'msg_time', 'msgs', 'msgs_bytes', 'msgs_bytes_saved',
  'msgs_failed_to_parse', 'msgs_failed_to_send', 'node_uptime_rewarding_stake',
  'node_uptime_weighted_average', 'nodes', 'non_level_0_comps', 'non_verified_blks',
  'num_cpu_cycles', 'num_disk_read_bytes', 'num_disk_reads', 'num_disk_write_bytes',
  'num_disk_writes', 'num_missing_accepted_blocks', 'num_processing_ancestor_fetches_dropped',
  'num_processing_ancestor_fetches_failed', 'num_processing_ancestor_fetches_succeeded',
  'num_processing_ancestor_fetches_unneeded', 'num_responsive_peers', 'num_tracked_peers',
  'num_useless_peerlist_bytes', 'num_useless_push_query_bytes', 'num_useless_put_bytes',
  'num_validators', 'open_tables', 'outstanding', 'peer_connected_duration_average', 'peers',
  'peers_subnet', 'pending_timeouts', 'percent_connected', 'poll_count', 'poll_duration', 'polls',
  'polls_failed', 'polls_successful', 'portion_filled', 'price', 'processing_time', 'put_count',
  'put_time', 'reads', 'request_duration_count', 'request_duration_sum', 'request_error_count',
  'requests', 'requests_failed', 'requests_made', 'requests_succeeded', 'reset_count',
  'round_trip_count', 'round_trip_sum', 'seconds', 'seek_comps', 'selected_vote_index',
  'send_fail_rate', 'size', 'table_count', 'target', 'throttle_limit',
  'throttler_awaiting_acquire', 'throttler_outbound_acquire_failures',
  'throttler_outbound_acquire_successes', 'throttler_outbound_awaiting_release',
  'throttler_outbound_remaining_at_large_bytes', 'throttler_outbound_remaining_validator_bytes',
  'throttler_total_no_waits', 'throttler_total_waits', 'time_since_last_msg_received',
  'time_since_last_msg_sent', 'time_until', 'time_until_unstake', 'time_until_unstake_subnet',
  'timeouts', 'times_connected', 'times_disconnected', 'tls_conn_rejected', 'top_validators',
  'total_staked', 'total_weight', 'tracked', 'tracked_peers', 'tracked_subnets', 'tracking',
  'tracking_lifetime_average', 'tx_refresh_hits', 'tx_refresh_misses', 'tx_refreshes',
  'txs_accepted', 'validator_sets_cached', 'validator_sets_created', 'validator_sets_duration_sum',
  'validator_sets_height_diff_sum', 'worst_case_base_fee', 'worst_case_gas_excess',
  'write_delayed', 'writes', 'writes_delayed', 'writes_delayed_duration',
];
