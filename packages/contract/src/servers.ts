// Schemas of the servers feature, shared by the server and the web app.
export {};
