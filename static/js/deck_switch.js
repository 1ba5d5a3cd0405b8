// The header's deck switch comes back to the page as it is now: the replay keeps its position in the URL
// (history.replaceState), so the form's "next", written when the page was served, is refreshed on submit.

const form = document.querySelector("[data-testid=deck-switch]");
if (form) {
  form.addEventListener("submit", () => {
    form.elements.next.value = `${location.pathname}${location.search}${location.hash}`;
  });
}
