// Schemas of the admin feature, shared by the server and the web app.
export {};
