// The new-tournament form: show only the fields of the chosen format and match.

const form = document.getElementById("tournament-form");
if (form) {
  const show = () => {
    const format = form.querySelector("input[name=format]:checked").value;
    const match = form.querySelector("input[name=match]:checked").value;
    for (const field of form.querySelectorAll("[data-format-field]")) field.hidden = field.dataset.formatField !== format;
    for (const field of form.querySelectorAll("[data-match-field]")) field.hidden = field.dataset.matchField !== match;
  };
  form.addEventListener("change", show);
  show();
}
