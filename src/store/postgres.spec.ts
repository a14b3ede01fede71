import { postgresForFile } from '../../test/helpers/postgres-file.js';
import { storeContract } from './contract.js';
import { PgStore } from './postgres/store.js';

// The StateStore contract on a real PostgreSQL cluster of this file's own: each place is a
// schema of its database (a second open of a place is a second instance on the same state).
const cluster = postgresForFile();

storeContract('PgStore', (place) => PgStore.open(cluster.url, { schema: place.replace(/-/g, '_') }), { shared: true });
