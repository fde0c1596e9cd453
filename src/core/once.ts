/** `make()`'s value, made on the first call and kept: for what a module needs only on some paths. */
export function once<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
