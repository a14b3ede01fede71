import type { HttpClient } from '../http.js';
import { operation, type Operation } from '../schemas.js';
import { AreaReader, type DataApiOptions } from './reader.js';

// Operations (the interface's §4.7): the asynchronous transaction export, under /v1/operations/.

export class Operations extends AreaReader {
  constructor(http: HttpClient, options: DataApiOptions) {
    super(http, options, { name: 'operations', prefix: '/v1/operations/' });
  }

  /** Starts an export (a POST: retried only on a 429, the service did not act on it). */
  async startExport(body: Record<string, unknown>, signal?: AbortSignal): Promise<Operation> {
    return this.get({ endpoint: '/v1/operations/transactions:export', body, schema: operation, signal });
  }

  /** An operation as it stands, or `not-found` when the service answers its own 404. */
  async status(operationId: string, signal?: AbortSignal): Promise<Operation | 'not-found'> {
    return this.get({ endpoint: '/v1/operations/{operationId}', params: { operationId }, schema: operation, notFound: true, signal });
  }
}
