import { z } from 'zod';
import { ApiError } from './errors.js';

/** A body that breaks the schema is an API failure, named by endpoint and field. */
export function parse<T extends z.ZodType>(schema: T, body: unknown, endpoint: string, path: string, api = 'data'): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ApiError(`${api} API ${path}: unexpected response: ${issueText(result.error)}`, {
    api,
    endpoint,
    code: 'schema',
    retryable: false,
  });
}

/** The first issue's field and message (never the value: it is the service's text), and how many more. */
export function issueText(error: z.ZodError, whole = 'body'): string {
  const first = error.issues[0];
  const where = first && first.path.length > 0 ? first.path.join('.') : whole;
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  return `${where}: ${first?.message ?? 'invalid'}${more}`;
}

/** The shape of a page of a list: its items under `key`, and the token of the next page, if any. */
export type PageShape<K extends string, S extends z.ZodType> = { [P in K]: z.ZodArray<S> } & { nextPageToken: z.ZodOptional<z.ZodString> };

/** Each item schema's pages, by key: the reader and the contract tests hold the very same schema. */
const pages = new WeakMap<z.ZodType, Map<string, z.ZodObject>>();

/** A page of a list of the service: `{ [key]: item[], nextPageToken? }`, made once per item schema and key. */
export function pageOf<K extends string, S extends z.ZodType>(key: K, item: S): z.ZodObject<PageShape<K, S>> {
  let byKey = pages.get(item);
  if (byKey === undefined) pages.set(item, (byKey = new Map()));
  // A computed key widens to `string` for TypeScript; the shape is the one written here.
  const page = byKey.get(key) ?? z.object({ [key]: z.array(item), nextPageToken: z.string().optional() } as PageShape<K, S>);
  byKey.set(key, page);
  return page as z.ZodObject<PageShape<K, S>>;
}
