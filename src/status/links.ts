import { html, type SafeHtml } from './escape.js';

/** Explorer base URLs per network (config `status.explorerUrl`). */
export type Explorers = Readonly<Record<string, string>>;

/** The Avalanche explorer: `/validators/<NodeID>` and `/p-chain/tx/<hash>` on both. */
export const DEFAULT_EXPLORERS: Explorers = { mainnet: 'https://subnets.avax.network', fuji: 'https://subnets-test.avax.network' };

function base(explorers: Explorers, network: string | undefined): string | undefined {
  const net = network === 'testnet' ? 'fuji' : (network ?? 'mainnet');
  const url = explorers[net] ?? explorers['mainnet'];
  return url?.replace(/\/+$/, '');
}

/**
 * A NodeID linked to the explorer. Chain text: URL-encoded in the path, escaped in the
 * attribute and the text (the `html` template does both escapes).
 */
export function nodeLink(explorers: Explorers, network: string | undefined, nodeId: string): SafeHtml {
  const b = base(explorers, network);
  if (b === undefined || nodeId === '') return html`<span class="id">${nodeId}</span>`;
  return html`<a class="id" rel="noreferrer" href="${`${b}/validators/${encodeURIComponent(nodeId)}`}">${nodeId}</a>`;
}

/** A P-chain transaction linked to the explorer. */
export function txLink(explorers: Explorers, network: string | undefined, hash: string): SafeHtml {
  const b = base(explorers, network);
  if (b === undefined || hash === '') return html`<span class="id">${hash}</span>`;
  return html`<a class="id" rel="noreferrer" href="${`${b}/p-chain/tx/${encodeURIComponent(hash)}`}">${hash}</a>`;
}

/** `status.explorerUrl`: one URL for every network, or some networks' own (the rest keep the defaults). */
export function explorersOf(config: string | Readonly<Record<string, string>> | undefined): Explorers {
  if (config === undefined) return DEFAULT_EXPLORERS;
  if (typeof config === 'string') return { mainnet: config, fuji: config };
  return { ...DEFAULT_EXPLORERS, ...config };
}
