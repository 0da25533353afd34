// The order-tracking example's page: a person's submit and an agent's call
// both look the order up; an agent's gets the answer as the tool's result.
const ORDERS = {
  'AB-1234': { status: 'shipped', carrier: 'Parcelway', arrives: '2026-12-04' },
  'CD-5678': { status: 'being packed', carrier: null, arrives: '2026-12-09' },
};

function lookUp(number) {
  const order = ORDERS[number];
  return order ? { order_number: number, ...order } : { order_number: number, status: 'not found' };
}

const form = document.getElementById('track');
const status = document.getElementById('status');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const found = lookUp(new FormData(form).get('order_number'));
  status.textContent = `${found.order_number}: ${found.status}${found.arrives ? `, arrives ${found.arrives}` : ''}`;
  if (event.agentInvoked) event.respondWith(Promise.resolve(found));
});
