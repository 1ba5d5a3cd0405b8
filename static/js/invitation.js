// The invitation page (templates/invitation.html): the link's code travels in its fragment, which browsers
// never send to a server, so that no access log or Referer holds it. Post it, and drop it from the address bar.
const form = document.querySelector("[data-testid=invitation-form]");

function acceptFromLink() {
  const code = decodeURIComponent(window.location.hash.slice(1));
  form.querySelector("[data-testid=invitation-status]").hidden = !code; // none: typed in by hand
  if (!code) return;
  history.replaceState(null, "", window.location.pathname);
  form.elements.token.value = code;
  form.requestSubmit();
}

if (form) {
  acceptFromLink();
  // A link pasted into a tab that shows this page already changes only the fragment: no new page load.
  window.addEventListener("hashchange", acceptFromLink);
}
