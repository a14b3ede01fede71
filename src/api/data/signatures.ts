import type { HttpClient } from '../http.js';
import { signatureAggregation } from '../schemas.js';
import { AreaReader, type DataApiOptions, type Network } from './reader.js';

// The signature aggregator (the interface's §4.4), under /v1/signatureAggregator/{network}/.

export class SignatureAggregator extends AreaReader {
  constructor(http: HttpClient, options: DataApiOptions) {
    super(http, options, { name: 'signature aggregator', prefix: '/v1/signatureAggregator/{network}/' });
  }

  /** One probe (answered 201 by the contract): one attempt, never shared; `onSent` as it is sent. */
  async aggregate(network: Network, txHash: string, signal?: AbortSignal, onSent?: () => void): Promise<{ signedMessage: string }> {
    return this.get({
      endpoint: '/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}',
      params: { network, txHash },
      schema: signatureAggregation,
      probe: true,
      signal,
      ...(onSent ? { onSent } : {}),
    });
  }
}
