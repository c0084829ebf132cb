// Schemas of the news feature, shared by the server and the web app.
export {};
