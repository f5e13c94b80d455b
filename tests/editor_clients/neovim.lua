-- `k8slb lsp` driven by Neovim's own LSP client (0.7 and later: vim.lsp.start_client),
-- headless, as tests/test_lsp_neovim.py runs it: the diagnostics published when a file
-- opens, then the code actions offered for its first finding, one line each on stdout.
-- K8SLB: the k8slb to run; K8SLB_FILE: the file to open, under the working folder.
local root = vim.fn.getcwd()
local seen = nil
local id = vim.lsp.start_client({
  name = 'k8slb',
  cmd = { os.getenv('K8SLB') or 'k8slb', 'lsp' },
  root_dir = root,
  handlers = {
    ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
      vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
      for _, d in ipairs(result.diagnostics) do
        io.stdout:write(string.format('diagnostic %d %s\n', d.range.start.line + 1, d.code or '?'))
      end
      if #result.diagnostics > 0 then seen = result.diagnostics end
    end,
  },
})
vim.cmd('edit ' .. root .. '/' .. os.getenv('K8SLB_FILE'))
vim.lsp.buf_attach_client(0, id)
vim.wait(30000, function() return seen ~= nil end, 50)
if seen == nil then io.stdout:write('no diagnostics\n'); vim.cmd('qall!') end
local first = seen[1]
local params = {
  textDocument = vim.lsp.util.make_text_document_params(0),
  range = first.range,
  context = { diagnostics = { first } },
}
local replies = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 20000) or {}
for _, reply in pairs(replies) do
  for _, action in ipairs(reply.result or {}) do
    io.stdout:write('action ' .. (action.kind or '?') .. ' ' .. action.title .. '\n')
  end
end
vim.lsp.stop_client(id)
vim.cmd('qall!')
