import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { collectPages } from './paginate.js';

const o = { api: 'data', endpoint: 'GET /v1/list', maxPages: 3 };

describe('collectPages', () => {
  it('follows nextPageToken to the end', async () => {
    const pages: Record<string, { items: number[]; nextPageToken?: string }> = {
      first: { items: [1, 2], nextPageToken: 't2' },
      t2: { items: [3], nextPageToken: '' },
    };
    await expect(collectPages(async (t) => pages[t ?? 'first']!, o)).resolves.toEqual([1, 2, 3]);
  });

  it('stops on a repeated token instead of looping', async () => {
    await expect(collectPages(async () => ({ items: [1], nextPageToken: 'same' }), o)).rejects.toThrow(
      'data API GET /v1/list: the service sent page token "same" a second time (page 3)',
    );
  });

  it('fails past the page cap rather than returning a partial list', async () => {
    let n = 0;
    await expect(collectPages(async () => ({ items: [n], nextPageToken: `t${++n}` }), o)).rejects.toThrow('more than 3 pages');
  });

  it('restarts once from page one when a token has expired', async () => {
    let calls = 0;
    const items = await collectPages(async (token) => {
      calls++;
      if (token === 'old' && calls === 2) {
        throw new ApiError('expired', { api: 'data', endpoint: 'x', status: 400, serviceMessage: 'Invalid page token', retryable: false, code: '400' });
      }
      return token ? { items: [2] } : { items: [1], nextPageToken: 'old' };
    }, o);
    expect(items).toEqual([1, 2]);
    expect(calls).toBe(4);
  });
});
