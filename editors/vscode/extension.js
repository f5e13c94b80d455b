// k8slb in VS Code: starts `k8slb lsp` (pip install 'k8slb[lsp]') for the files k8slb
// reads; the server does the rest (diagnostics, code actions, hover). One command of the
// extension's own shows the server's `k8slb.explainLinks` text in an output channel.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

// the languages of the files k8slb reads (its manifests, charts, code and Dockerfiles)
const LANGUAGES = [
  "yaml",
  "helm",
  "python",
  "go",
  "javascript",
  "typescript",
  "java",
  "kotlin",
  "dockerfile",
];
const SERVER_COMMAND = "k8slb.explainLinks";
const SHOW_LINKS = "k8slb.showLinks";

let client;

function serverOptions(configuration) {
  const command = configuration.get("path") || "k8slb";
  return { command, args: ["lsp"] };
}

function clientOptions() {
  return { documentSelector: LANGUAGES.map((language) => ({ scheme: "file", language })) };
}

async function activate(context) {
  client = new LanguageClient(
    "k8slb",
    "k8slb",
    serverOptions(vscode.workspace.getConfiguration("k8slb")),
    clientOptions(),
  );
  const output = vscode.window.createOutputChannel("k8slb links");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand(SHOW_LINKS, async () => {
      const text = await client.sendRequest("workspace/executeCommand", {
        command: SERVER_COMMAND,
        arguments: [],
      });
      output.clear();
      output.append(String(text));
      output.show(true);
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, LANGUAGES, SERVER_COMMAND, SHOW_LINKS, serverOptions };
