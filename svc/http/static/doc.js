// Fetch the engine's OpenAPI document (with the token, when the engine wants one)
// and render it with the vendored Redoc. The token lives in this closure only.
(function () {
  "use strict";
  var form = document.getElementById("login");
  var input = document.getElementById("token");
  var status = document.getElementById("status");

  function render(spec) {
    form.hidden = true;
    Redoc.init(spec, { hideDownloadButton: false }, document.getElementById("reference"));
  }

  function load(token) {
    var headers = token ? { "X-Agent-Token": token } : {};
    return fetch("openapi.json", { headers: headers, credentials: "omit" }).then(function (r) {
      if (r.status === 401) {
        form.hidden = false;
        status.textContent = token ? "That token was refused." : "";
        input.focus();
        return null;
      }
      if (!r.ok) {
        throw new Error("the engine answered " + r.status);
      }
      return r.json().then(render);
    }).catch(function (error) {
      form.hidden = false;
      status.textContent = String(error);
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    load(input.value.trim());
  });
  load(null);
})();
