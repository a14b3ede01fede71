/**
 * The part of a rule's spec that names what it watches. A node rule names its nodes in
 * `urls`; its `nodeIds` (node-health's) only widen the service's list it asks, so the list is
 * the validator rules' own call: a node there is not watched by it.
 */
export function watchedSpec(spec: Record<string, unknown>): Record<string, unknown> {
  if (typeof spec['urls'] !== 'object' || spec['urls'] === null) return spec;
  const { nodeIds: _asked, ...watched } = spec;
  return watched;
}
