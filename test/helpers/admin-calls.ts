/**
 * A call to the admin API with the operator's token, answering the parsed body (undefined for a
 * 204). `base`: the server's, read at call time (it is known only once the suite's server runs).
 */
export function adminCaller(base: () => string, token: string): <T>(method: string, path: string, body?: unknown) => Promise<T> {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
}
