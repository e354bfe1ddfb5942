/**
 * A call that did not succeed: the HTTP status (0 when the network failed), the words to show for it, the answer's
 * error code when it gave one, and, from a form's endpoint, each problem with the field it is about.
 */
export type ApiFailure = {
  ok: false;
  status: number;
  message: string;
  code?: string | undefined;
  problems?: { field: string; message: string }[] | undefined;
};

export type ApiResult<T> = { ok: true; data: T } | ApiFailure;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Said for a 429 that brings no message of its own (one from a proxy, say): the shopper must still be told to wait. */
export const TOO_MANY_REQUESTS = 'Too many requests. Please wait a moment and try again.';

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
    const data = (await res.json().catch(() => ({}))) as T & {
      error?: { message?: string; code?: string; problems?: { field: string; message: string }[] };
    };
    if (!res.ok) {
      const fallback = res.status === 429 ? TOO_MANY_REQUESTS : `Request failed (${res.status})`;
      const { message, code, problems } = data.error ?? {};
      return { ok: false, status: res.status, message: message || fallback, code, ...(problems ? { problems } : {}) };
    }
    return { ok: true, data };
  } catch {
    return { ok: false, status: 0, message: 'Network error. Please check your connection and try again.' };
  }
}

/** The server limits how often the shopper may do this (429): its message tells them to wait. */
export function isRateLimited(failure: ApiFailure): boolean {
  return failure.status === 429;
}

/**
 * What a form says when a call failed: the server's own words when they are meant for the shopper (a refused input,
 * 400, says what to fix; a rate limit, 429, says to wait), else the form's general `fallback`.
 */
export function failureText(failure: ApiFailure, fallback: string): string {
  return failure.status === 400 || isRateLimited(failure) ? failure.message : fallback;
}
