// A stand-in for Stripe.js (https://js.stripe.com/<version>/stripe.js), which cannot be downloaded on these machines.
// tests/e2e/stripe.spec.ts serves it in place of the real script with page.route, so the page still asks js.stripe.com
// for it (and the CSP still decides whether it may). It implements only what @stripe/stripe-js, @stripe/react-stripe-js
// and StripeCardForm.tsx call:
// - window.Stripe(publishableKey) → an object react-stripe-js's isStripe() accepts (elements, createToken,
//   createPaymentMethod, confirmCardPayment) plus confirmPayment, and the hidden controller frame Stripe.js adds to
//   the page (from js.stripe.com, so frame-src is exercised too);
// - elements({clientSecret, appearance}) → create('payment') → an element that mounts plain labelled inputs (the real
//   Payment Element is an iframe from js.stripe.com whose fields the page cannot read) and fires 'ready' and 'change';
// - elements.submit() → {error} while the card number is empty, as the real one checks fields before confirming;
// - confirmPayment({elements, redirect: 'if_required'}) → POST https://api.stripe.com/v1/payment_intents/:id/confirm,
//   form-encoded with the publishable key as `key`, the client secret and payment_method_data[card][…], as Stripe.js
//   sends it; the spec routes that origin to tests/mocks/stripe.ts. The answer is {paymentIntent} or {error}.
// What it does NOT do: 3-D Secure, redirects, wallets, Link, other payment methods, appearance, field validation
// beyond "empty", or anything else in Stripe's frames. It proves our page's wiring, not Stripe's own script.
(() => {
  const API = 'https://api.stripe.com/v1';
  const scriptSrc = document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : '';
  // @stripe/stripe-js compares this with the release it expects (the path it loaded); the real script reports its own.
  const version = /^https:\/\/js\.stripe\.com\/([a-z0-9]+)\/stripe\.js/.exec(scriptSrc)?.[1] ?? 'v3';
  /** What the page asked of the fake, for the spec to read back. */
  const calls = [];
  window.__fakeStripeJs = { calls };

  /** A tiny event emitter, as Stripe's element.on/off/once. */
  function emitter() {
    const listeners = new Map();
    return {
      on(event, handler) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event).add(handler);
      },
      off(event, handler) {
        if (handler) listeners.get(event)?.delete(handler);
        else listeners.delete(event);
      },
      emit(event, payload) {
        for (const handler of [...(listeners.get(event) ?? [])]) handler(payload);
      },
    };
  }

  let uid = 0;
  function field(parent, labelText, attributes) {
    const id = `fake-stripe-${++uid}`;
    const wrapper = document.createElement('div');
    wrapper.className = 'fake-stripe-field';
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = labelText;
    const input = document.createElement('input');
    input.id = id;
    for (const [name, value] of Object.entries(attributes)) input.setAttribute(name, value);
    wrapper.append(label, input);
    parent.append(wrapper);
    return input;
  }

  /** The Payment Element: a card number, expiry and CVC the page can type into. */
  function paymentElement(type) {
    const events = emitter();
    let root = null;
    let inputs = null;
    let destroyed = false;
    const element = {
      on(event, handler) {
        events.on(event, handler);
        return element;
      },
      once(event, handler) {
        const once = (payload) => {
          events.off(event, once);
          handler(payload);
        };
        events.on(event, once);
        return element;
      },
      off(event, handler) {
        events.off(event, handler);
        return element;
      },
      mount(target) {
        if (destroyed) throw new Error('This Element has already been destroyed.');
        const container = typeof target === 'string' ? document.querySelector(target) : target;
        if (!(container instanceof HTMLElement)) throw new Error('Invalid DOM element supplied to mount().');
        calls.push({ method: 'element.mount', type });
        root = document.createElement('div');
        root.className = 'fake-stripe-payment-element';
        root.setAttribute('data-testid', 'fake-payment-element');
        inputs = {
          number: field(root, 'Card number', { autocomplete: 'cc-number', inputmode: 'numeric' }),
          expiry: field(root, 'Expiration date (MM / YY)', { autocomplete: 'cc-exp' }),
          cvc: field(root, 'Security code', { autocomplete: 'cc-csc', inputmode: 'numeric' }),
        };
        const error = document.createElement('p');
        error.className = 'fake-stripe-error';
        error.setAttribute('role', 'alert');
        root.append(error);
        inputs.error = error;
        for (const input of [inputs.number, inputs.expiry, inputs.cvc]) {
          input.addEventListener('input', () => {
            const empty = inputs.number.value.trim() === '';
            events.emit('change', { elementType: type, empty, complete: !empty, value: { type: 'card' } });
          });
        }
        container.append(root);
        // The real element says 'ready' once its frame has loaded, some time after mount(): never synchronously.
        setTimeout(() => {
          if (!destroyed) events.emit('ready', { elementType: type });
        }, 100);
      },
      unmount() {
        root?.remove();
        root = null;
      },
      destroy() {
        element.unmount();
        destroyed = true;
      },
      update() {},
      focus() {
        inputs?.number.focus();
      },
      blur() {},
      clear() {
        if (!inputs) return;
        for (const input of [inputs.number, inputs.expiry, inputs.cvc]) input.value = '';
      },
      /** Not Stripe's API: what was typed, for confirmPayment. */
      _card() {
        if (!inputs) return null;
        const [month = '', year = ''] = inputs.expiry.value.split('/').map((part) => part.trim());
        return { number: inputs.number.value.replace(/\s/g, ''), exp_month: month, exp_year: year, cvc: inputs.cvc.value };
      },
      _showError(message) {
        if (inputs) inputs.error.textContent = message;
      },
    };
    return element;
  }

  function elementsGroup(options) {
    const clientSecret = options?.clientSecret;
    const created = new Map();
    calls.push({ method: 'elements', clientSecret, appearance: options?.appearance ?? null });
    const group = {
      _clientSecret: clientSecret,
      create(type, elementOptions) {
        if (type !== 'payment') throw new Error(`The fake Stripe.js only makes the Payment Element, not '${type}'.`);
        if (created.has(type)) throw new Error(`Can only create one Element of type ${type}.`);
        calls.push({ method: 'elements.create', type, options: elementOptions ?? null });
        const element = paymentElement(type);
        created.set(type, element);
        return element;
      },
      getElement(type) {
        return created.get(type) ?? null;
      },
      update() {},
      fetchUpdates: async () => ({}),
      async submit() {
        calls.push({ method: 'elements.submit' });
        const card = created.get('payment')?._card();
        if (!card || card.number === '') {
          const message = 'Your card number is incomplete.';
          created.get('payment')?._showError(message);
          return { error: { type: 'validation_error', code: 'incomplete_number', message } };
        }
        created.get('payment')?._showError('');
        return {};
      },
    };
    return group;
  }

  const notInFake = (name) => () => Promise.reject(new Error(`The fake Stripe.js does not implement ${name}.`));

  function Stripe(publishableKey, options) {
    if (typeof publishableKey !== 'string' || !publishableKey.startsWith('pk_')) {
      throw new Error('Invalid publishable key.');
    }
    calls.push({ method: 'Stripe', publishableKey, options: options ?? null });
    // Stripe.js adds a hidden controller frame from its own origin as it starts.
    if (!document.querySelector('iframe[name="__privateStripeController"]')) {
      const controller = document.createElement('iframe');
      controller.name = '__privateStripeController';
      controller.title = 'Stripe';
      controller.hidden = true;
      controller.tabIndex = -1;
      controller.setAttribute('aria-hidden', 'true');
      controller.src = `https://js.stripe.com/${version}/controller.html`;
      document.body.append(controller);
    }

    async function confirmPayment({ elements, redirect, confirmParams } = {}) {
      calls.push({ method: 'confirmPayment', redirect: redirect ?? null, confirmParams: confirmParams ?? null });
      if (!elements?._clientSecret) throw new Error('confirmPayment needs the elements group the intent was mounted in.');
      if (redirect !== 'if_required' && !confirmParams?.return_url) {
        throw new Error('confirmPayment: confirmParams.return_url is required unless redirect is "if_required".');
      }
      const card = elements.getElement('payment')?._card();
      if (!card) throw new Error('confirmPayment: the Payment Element is not mounted.');
      const clientSecret = elements._clientSecret;
      const intentId = clientSecret.split('_secret_')[0];
      const body = new URLSearchParams({
        key: publishableKey,
        client_secret: clientSecret,
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': card.number,
        'payment_method_data[card][exp_month]': card.exp_month,
        'payment_method_data[card][exp_year]': card.exp_year,
        'payment_method_data[card][cvc]': card.cvc,
      });
      if (confirmParams?.return_url) body.set('return_url', confirmParams.return_url);
      let response;
      try {
        response = await fetch(`${API}/payment_intents/${encodeURIComponent(intentId)}/confirm`, { method: 'POST', body });
      } catch {
        return { error: { type: 'api_connection_error', message: 'An error occurred with our connection to Stripe.' } };
      }
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        return { error: answer.error ?? { type: 'api_error', message: `Stripe answered HTTP ${response.status}.` } };
      }
      return { paymentIntent: answer };
    }

    return {
      elements: elementsGroup,
      confirmPayment,
      createToken: notInFake('createToken'),
      createPaymentMethod: notInFake('createPaymentMethod'),
      confirmCardPayment: notInFake('confirmCardPayment'),
      retrievePaymentIntent: notInFake('retrievePaymentIntent'),
      _registerWrapper(wrapper) {
        calls.push({ method: '_registerWrapper', wrapper });
      },
      registerAppInfo() {},
    };
  }
  Stripe.version = version;
  window.Stripe = Stripe;
})();
