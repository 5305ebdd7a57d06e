"""The panel's hardware: its gpiozero devices (:mod:`.io`), its memory in the state directory
(:mod:`.memory`) and the Pico that may carry its pins and display (:mod:`.pico`)."""
