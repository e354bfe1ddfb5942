// Review moderation as the admin's queue island and its endpoint (POST /api/admin/reviews) both see it.

/** What an admin decides about a review. */
export type ReviewDecision = 'approve' | 'reject';

/** Where a review stands: waiting in the queue, shown to everyone, or shown to nobody. */
export type ReviewState = 'pending' | 'approved' | 'rejected';

/** The state a decision leads to. */
export const DECISION_STATE: Record<ReviewDecision, ReviewState> = { approve: 'approved', reject: 'rejected' };

/** The most reviews one request may decide on (the queue shows fewer on a page). */
export const MAX_REVIEWS_PER_DECISION = 100;

/** A pending review as the queue lists it. */
export interface QueueReview {
  id: string;
  productId: number;
  productName: string;
  rating: number;
  comment: string;
  /** As the product page shows it (masked). */
  author: string;
  /** The author's account e-mail, for the shop owner; null when the account is gone. */
  accountEmail: string | null;
  verified: boolean;
  /** ISO 8601. */
  createdAt: string;
}

/** What POST /api/admin/reviews answers: each review's state now, and whether this request changed it. */
export interface ModerationAnswer {
  reviews: { id: string; state: ReviewState; changed: boolean }[];
}
