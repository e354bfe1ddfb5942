/** Contact form messages (product spec). */
export const CONTACT_MESSAGES = {
  fillAll: 'Please fill in all fields.',
  sent: "Message sent! We'll get back to you soon.",
  failed: 'Something went wrong. Please try again.',
} as const;

/** Longest message the shop accepts (the column's check). */
export const MAX_MESSAGE_LENGTH = 5000;
