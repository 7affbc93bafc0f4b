// Swagger UI for /api/docs, served from the package (no CDN); writes carry the CSRF token.
window.addEventListener("load", function () {
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    requestInterceptor: function (req) { req.headers["X-CSRF-Token"] = csrf; return req; }
  });
});
