// The extension as VS Code would load it, with `vscode` and `vscode-languageclient`
// stubbed (neither is installed to run this): its manifest names what its code does, and
// activating it starts `k8slb lsp` and wires the links command to the server's.
"use strict";

const assert = require("node:assert");
const fs = require("node:fs");
const Module = require("node:module");
const path = require("node:path");
const test = require("node:test");

const ROOT = path.join(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

function loaded(settings) {
  const seen = { commands: {}, clients: [], sent: [], output: [] };
  const vscode = {
    workspace: { getConfiguration: () => ({ get: (key) => settings[key] }) },
    window: {
      createOutputChannel: () => ({
        clear: () => seen.output.splice(0),
        append: (text) => seen.output.push(text),
        show: () => {},
        dispose: () => {},
      }),
    },
    commands: {
      registerCommand: (name, run) => {
        seen.commands[name] = run;
        return { dispose: () => {} };
      },
    },
  };
  class LanguageClient {
    constructor(id, name, server, options) {
      seen.clients.push({ id, name, server, options, started: false });
    }
    async start() {
      seen.clients.at(-1).started = true;
    }
    async sendRequest(method, params) {
      seen.sent.push({ method, params });
      return "Deployment/shop/frontend:web -> client.py\n";
    }
    async stop() {}
  }
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === "vscode") return vscode;
    if (request === "vscode-languageclient/node") return { LanguageClient };
    return load.call(this, request, ...rest);
  };
  try {
    delete require.cache[require.resolve(path.join(ROOT, manifest.main))];
    return { extension: require(path.join(ROOT, manifest.main)), seen };
  } finally {
    Module._load = load;
  }
}

test("the manifest's entry point exists and every language it serves activates it", () => {
  const { extension } = loaded({});
  assert.ok(fs.existsSync(path.join(ROOT, manifest.main)));
  for (const language of extension.LANGUAGES) {
    assert.ok(manifest.activationEvents.includes(`onLanguage:${language}`), language);
  }
  assert.ok(manifest.dependencies["vscode-languageclient"]);
  assert.ok(manifest.engines.vscode);
});

test("the command the manifest contributes is the one the extension registers", async () => {
  const { extension, seen } = loaded({});
  await extension.activate({ subscriptions: [] });
  assert.deepStrictEqual(
    manifest.contributes.commands.map((c) => c.command),
    Object.keys(seen.commands),
  );
});

test("activating starts `k8slb lsp`, or the command the settings name", async () => {
  for (const [settings, command] of [[{}, "k8slb"], [{ path: "/opt/k8slb/bin/k8slb" }, "/opt/k8slb/bin/k8slb"]]) {
    const { extension, seen } = loaded(settings);
    await extension.activate({ subscriptions: [] });
    const [client] = seen.clients;
    assert.deepStrictEqual(client.server, { command, args: ["lsp"] });
    assert.ok(client.started);
    const languages = client.options.documentSelector.map((s) => s.language);
    assert.deepStrictEqual(languages, extension.LANGUAGES);
  }
});

test("showing the links asks the server's explainLinks and shows its text", async () => {
  const { extension, seen } = loaded({});
  await extension.activate({ subscriptions: [] });
  await seen.commands[extension.SHOW_LINKS]();
  assert.deepStrictEqual(seen.sent, [
    { method: "workspace/executeCommand", params: { command: "k8slb.explainLinks", arguments: [] } },
  ]);
  assert.deepStrictEqual(seen.output, ["Deployment/shop/frontend:web -> client.py\n"]);
});
