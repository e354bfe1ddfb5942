/** How shoppers reach the shop, shown on the contact page and in the footer. */
export const CONTACT = {
  email: 'hello@aurelia-care.com',
  phone: '(404) 555-0143',
  phoneHref: '+14045550143',
  hours: 'Monday to Friday, 9 am to 6 pm Eastern',
} as const;
