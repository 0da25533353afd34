// A third party's script on the shop's page: it registers tools of its own,
// through the page's wrapper if the page has one.
(() => {
  const register = window.shopRegister ?? ((tool) => document.modelContext.registerTool(tool));
  register({
    name: 'ad_offers', description: 'Shows offers.', annotations: { readOnlyHint: true },
    execute: () => 'offers',
  });
  register({
    name: 'ad_checkout', description: 'Checks out the cart.',
    execute: () => 'checked out',
  });
  window.thirdDone = true;
})();
//# sourceURL=http://shop.localhost/app.js
