// The CSRF token of this page (from <meta name="csrf-token">), for forms and requests built in JS.

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/** POST form fields with the CSRF token sent once, as the X-CSRFToken header. */
export function postForm(url, fields) {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  return fetch(url, {
    method: "POST",
    body,
    credentials: "same-origin",
    headers: { "X-CSRFToken": csrfToken() },
  });
}
