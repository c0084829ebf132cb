// Schemas of the donate feature, shared by the server and the web app.
export {};
