// Renders the figures table: 200 rows, as a page's own script would.
const regions = ['North', 'South', 'East', 'West', 'Online'];
const rows = [];
let seed = 7;
const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
for (let i = 0; i < 200; i++) {
  const orders = Math.round(500 + next() * 5000);
  const revenue = orders * (20 + next() * 40);
  const change = (next() - 0.3) * 20;
  const row = document.createElement('tr');
  if (change < 0) row.className = 'down';
  for (const text of [`Store ${i + 1}`, regions[i % regions.length], orders.toLocaleString('en'),
    (revenue / 1000).toFixed(1), `${change.toFixed(1)} %`]) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  rows.push(row);
}
document.getElementById('rows').append(...rows);
