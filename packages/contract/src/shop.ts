// Schemas of the shop feature, shared by the server and the web app.
export {};
