// Schemas of the skins feature, shared by the server and the web app.
export {};
