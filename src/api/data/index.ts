import type { HttpClient } from '../http.js';
import { Evm } from './evm.js';
import { Icm } from './icm.js';
import { Operations } from './operations.js';
import { PrimaryNetwork } from './primary.js';
import type { DataApiOptions } from './reader.js';
import { SignatureAggregator } from './signatures.js';

/**
 * The chain data service, one reader per area of its interface. Each reads its own endpoints
 * and any other under its prefix through its generic `get` and `list`, so a kind that reads a
 * new endpoint does so from its own folder, with its own schema.
 */
export class DataApi {
  readonly primary: PrimaryNetwork;
  readonly icm: Icm;
  readonly evm: Evm;
  readonly operations: Operations;
  readonly signatures: SignatureAggregator;

  constructor(
    /** For a reader of any path, the endpoint kind's. */
    readonly http: HttpClient,
    readonly options: DataApiOptions,
  ) {
    this.primary = new PrimaryNetwork(http, options);
    this.icm = new Icm(http, options);
    this.evm = new Evm(http, options);
    this.operations = new Operations(http, options);
    this.signatures = new SignatureAggregator(http, options);
  }
}
