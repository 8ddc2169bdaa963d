// A minimal VS Code client for `gradguard server`: starts it over stdio for Python files and
// Jupyter notebooks; diagnostics, quick fixes and "fix all" come from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("gradguard").get("command");
  client = new LanguageClient(
    "gradguard",
    "gradguard",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        { notebook: "jupyter-notebook", language: "python" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
