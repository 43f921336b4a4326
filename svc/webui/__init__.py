"""The web application: embedded by the engine (``--web-ui``) and served by the control panel.

The application is static files shipped in this package (``static/``); no Node
toolchain is needed to install or run it. ``embed`` mounts it in the engine,
``panel`` is the separate control-panel process.
"""
