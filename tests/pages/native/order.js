// The page's own handling of its form: an agent's submission is answered
// through respondWith, as the WebMCP draft's declarative API has it; every
// submission that reaches the page is logged, so a test sees whether one did.
document.getElementById('track').addEventListener('submit', (event) => {
  event.preventDefault();
  const order = new FormData(event.target).get('order');
  const item = document.createElement('li');
  item.textContent = `tracked ${order}`;
  document.getElementById('log').append(item);
  if (event.agentInvoked) event.respondWith(Promise.resolve({ order, status: 'shipped' }));
});
