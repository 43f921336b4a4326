"""The control panel: a separate process serving the web application and proxying the engine.

The panel adds the engine token itself, so the browser never holds it; and
because it lends that authority to whatever reaches it, it answers only
requests that name it by its own address or a loopback name, from no browser
page but its own (see ``guard``).
"""
