/**
 * What a card form (our TEST MODE form, or Stripe's Payment Element) reports to the checkout. The checkout then asks
 * the server to verify the payment and record the order: the form's word is never taken for it (decision 004).
 */
export type CardResult =
  | { status: 'succeeded' }
  /** The processor still works on it: the order is recorded when it succeeds (webhook or reconciliation). */
  | { status: 'processing' }
  /** `reason: 'card'`: the processor's message (show 'Payment failed: ' + message); 'network': the request failed. */
  | { status: 'failed'; message: string; reason: 'card' | 'network' }
  | { status: 'requires_action' };

export interface CardFormProps {
  clientSecret: string;
  /** The total the server computed, shown on the Pay button. */
  amountCents: number;
  onResult: (result: CardResult) => void;
  /** Called as the card goes to the processor, so the checkout can block the form while the payment is processing. */
  onProcessing?: () => void;
  /** While the checkout is busy elsewhere (saving the order), the form cannot be sent again. */
  disabled?: boolean;
  /**
   * Asked just before the card goes to the processor: the checkout holds its items again (a hold lasts 15 minutes, and
   * a declined card lets go of it). A message means they cannot be had, and the card is not charged.
   */
  beforePay?: () => Promise<string | null>;
}

/** What the browser is told about the payments adapter (mirrors the port's PaymentsClientConfig; never a secret). */
export type PaymentsClient = { kind: 'test' } | { kind: 'stripe'; publishableKey: string };
