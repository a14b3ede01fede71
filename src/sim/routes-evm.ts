import { error, isReply, ok, paginate, type Ctx, type Handler, type SimArea } from './http.js';

// The per-address EVM lists (src/sim/evm.ts holds what they list): startBlock inclusive,
// endBlock exclusive, newest first.

/** A block bound as the service reads it: a whole number, or a 400 that says which. */
function blockParam(q: URLSearchParams, name: string, problems: string[]): number | undefined {
  const raw = q.get(name);
  if (raw === null) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < 0) problems.push(`${name} must be a number conforming to the specified constraints`);
  return value;
}

/**
 * One per-address list. Only /transactions takes sortOrder (the others list newest first
 * whatever is asked, as their published parameters have none).
 */
function addressList(which: 'transactions' | 'erc20Transfers' | 'internalTransactions'): Handler {
  return (ctx: Ctx) => {
    const q = ctx.url.searchParams;
    const problems: string[] = [];
    const start = blockParam(q, 'startBlock', problems);
    const end = blockParam(q, 'endBlock', problems);
    const sortOrder = which === 'transactions' ? q.get('sortOrder') : null;
    if (sortOrder !== null && sortOrder !== 'asc' && sortOrder !== 'desc') problems.push('sortOrder must be one of the following values: asc, desc');
    if (problems.length > 0) return error(400, problems);
    const chainId = decodeURIComponent(ctx.params[0] ?? '');
    const address = decodeURIComponent(ctx.params[1] ?? '');
    const oldestFirst = ctx.world.evm[which](chainId, address)
      .filter(({ block }) => (start === undefined || block >= start) && (end === undefined || block < end))
      .map(({ item }) => item);
    const items = sortOrder === 'asc' ? oldestFirst : oldestFirst.reverse();
    const page = paginate(ctx, items);
    if (isReply(page)) return page;
    return ok({ transactions: page.page, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) });
  };
}

/** An address's native, ERC-20 and internal lists; before the data area's catch-all that answers the other EVM lists (ERC-721, ERC-1155) empty. */
export const evmArea: SimArea = { name: 'evm addresses', routes: [
  ['GET', /^\/v1\/chains\/([^/]+)\/addresses\/([^/]+)\/transactions$/, addressList('transactions')],
  ['GET', /^\/v1\/chains\/([^/]+)\/addresses\/([^/]+)\/transactions:listErc20$/, addressList('erc20Transfers')],
  ['GET', /^\/v1\/chains\/([^/]+)\/addresses\/([^/]+)\/transactions:listInternals$/, addressList('internalTransactions')],
] };
