/** Text made safe to place in an e-mail's HTML, as element content or an attribute value. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
