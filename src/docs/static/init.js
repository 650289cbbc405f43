// Renders /api/v1/openapi.json with Swagger UI; nothing is fetched from another origin (no validator badge).
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: false,
});
