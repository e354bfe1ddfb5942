export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Calls one of our own JSON endpoints from an island. A body means POST unless a method is given.
 * A network failure or an error answer ({error: {message}}) becomes {ok: false, status, message}.
 */
export async function api<T>(path: string, body?: unknown, method?: Method): Promise<ApiResult<T>> {
  const verb: Method = method ?? (body === undefined ? 'GET' : 'POST');
  try {
    const res = await fetch(path, {
      method: verb,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      credentials: 'same-origin',
    });
    const data = (await res.json().catch(() => ({}))) as T & { error?: { message?: string } };
    if (!res.ok) return { ok: false, status: res.status, message: data.error?.message ?? `Request failed (${res.status})` };
    return { ok: true, data };
  } catch {
    return { ok: false, status: 0, message: 'Network error. Please check your connection and try again.' };
  }
}
