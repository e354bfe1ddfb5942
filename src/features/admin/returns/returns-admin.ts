// The returns part of the admin: how the list's filter is read from its address, what each step may follow, and the
// activity log's words. Pure, shared by the server (which enforces it) and the islands.
import { RETURN_STATUS_LABELS, RETURN_STATUSES, type ReturnStatus } from '@/features/returns/returns';

/** What the list is asked for: one status, or every return. */
export interface ReturnListQuery {
  status: ReturnStatus | null;
}

export function returnListQuery(params: URLSearchParams): ReturnListQuery {
  const status = params.get('status');
  return { status: status && (RETURN_STATUSES as readonly string[]).includes(status) ? (status as ReturnStatus) : null };
}

/** The list's filters, in the order of a return's life, each with what it counts. */
export const RETURN_FILTERS: readonly [ReturnStatus | 'all', string][] = [
  ['all', 'All'],
  ...RETURN_STATUSES.map((s) => [s, RETURN_STATUS_LABELS[s]] as [ReturnStatus, string]),
];

/** Returns waiting for the owner: a request to decide on, or items received and not yet refunded. */
export const WAITING: readonly ReturnStatus[] = ['requested', 'received'];

/** What the owner does to a return, and the statuses each is done from. */
export const RETURN_ACTIONS = {
  approve: { from: ['requested'], to: 'approved' },
  decline: { from: ['requested', 'approved'], to: 'declined' },
  receive: { from: ['approved'], to: 'received' },
  refund: { from: ['received'], to: 'refunded' },
  exchange: { from: ['received'], to: 'exchanged' },
} as const satisfies Record<string, { from: readonly ReturnStatus[]; to: ReturnStatus }>;
export type ReturnAction = keyof typeof RETURN_ACTIONS;

/** Why `action` cannot be done to a return that is `status`, in words, or null when it can. */
export function returnActionProblem(action: ReturnAction, status: ReturnStatus): string | null {
  const { from, to } = RETURN_ACTIONS[action];
  if ((from as readonly ReturnStatus[]).includes(status)) return null;
  if (status === to) return `The return is already ${RETURN_STATUS_LABELS[to].toLowerCase()}.`;
  if (status === 'declined') return 'The return was declined: nothing more happens to it.';
  if (status === 'refunded') return 'The return is refunded: nothing more happens to it.';
  if (status === 'exchanged') return 'The replacement was sent: nothing more happens to this return.';
  return `A ${RETURN_STATUS_LABELS[status].toLowerCase()} return cannot be ${action === 'receive' ? 'received' : `${action}d`}: it must be ${from.map((s) => RETURN_STATUS_LABELS[s].toLowerCase()).join(' or ')}.`;
}

/** The activity log's names for the return actions. */
export const RETURN_ACTION_LABELS = {
  'return.approve': 'Return approved',
  'return.decline': 'Return declined',
  'return.receive': 'Return items received',
  'return.refund': 'Return refunded',
  'return.exchange': 'Replacement sent',
} as const;

/** How the activity log says the fields the return actions record. */
export const RETURN_FIELD_WORDS: Record<string, (value: unknown) => string> = {
  returnStatus: (v) => `return ${RETURN_STATUS_LABELS[v as ReturnStatus]?.toLowerCase() ?? String(v)}`,
  declineReason: (v) => `reason: ${String(v)}`,
  received: (v) => `received: ${String(v)}`,
  shippingCents: (v) => (typeof v === 'number' && v > 0 ? 'shipping included' : 'shipping not included'),
  replacement: (v) => `replacement order ${String(v)}`,
};
