import type { SessionUser } from './auth.store';

export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

/** Calls one of our own JSON endpoints; a network failure or an error answer becomes {ok: false, message}. */
export async function api<T>(path: string, body?: unknown): Promise<ApiResult<T>> {
  try {
    const res = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
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

export type UserAnswer = { user: SessionUser | null };
