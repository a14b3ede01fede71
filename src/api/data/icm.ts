import type { HttpClient } from '../http.js';
import { icmMessage, type IcmMessage } from '../schemas.js';
import { AreaReader, type DataApiOptions, type Network } from './reader.js';

// Interchain messaging (the interface's §4.6), under /v1/icm/.

export class Icm extends AreaReader {
  constructor(http: HttpClient, options: DataApiOptions) {
    super(http, options, { name: 'ICM', prefix: '/v1/icm/' });
  }

  /** The messages of an address, newest first, at most `pages` pages; `complete` says whether the list ended within them. */
  async messages(address: string, network: Network, pages: number, signal?: AbortSignal): Promise<{ messages: IcmMessage[]; complete: boolean }> {
    const { items, complete } = await this.list({
      endpoint: '/v1/icm/addresses/{address}/messages',
      params: { address },
      query: { network },
      items: 'messages',
      item: icmMessage,
      maxPages: pages,
      partial: true,
      signal,
    });
    return { messages: items, complete };
  }
}
