# An SSD1306 OLED on I2C with a framebuf: the host sends the 1-bit frame's changed pages (or a
# line of text); the Pico writes them through to the display's memory.
import framebuf

SET_CONTRAST = 0x81
DISPLAY_ON = 0xAF
DISPLAY_OFF = 0xAE
COLUMN_ADDR = 0x21
PAGE_ADDR = 0x22

INIT = (
    (DISPLAY_OFF,),
    (0x20, 0x00),  # horizontal addressing
    (0x40,),  # start line 0
    (0xA1,),  # segment remap: column 127 is SEG0
    (0xA8, None),  # multiplex: height - 1
    (0xC8,),  # scan from COM[N-1]
    (0xD3, 0x00),  # display offset
    (0xDA, None),  # COM pins: 0x12 for 64 rows, 0x02 for 32
    (0xD5, 0x80),  # clock divide
    (0xD9, 0xF1),  # pre-charge
    (0xDB, 0x30),  # VCOM deselect
    (SET_CONTRAST, 0xFF),
    (0xA4,),  # follow RAM
    (0xA6,),  # not inverted
    (0x8D, 0x14),  # charge pump on
)


class Oled:
    def __init__(self, i2c, width, height, address):
        self.i2c = i2c
        self.width = width
        self.height = height
        self.pages = height // 8
        self.address = address
        self.buf = bytearray(width * self.pages)
        self.fb = framebuf.FrameBuffer(self.buf, width, height, framebuf.MONO_VLSB)
        for cmd in INIT:
            args = []
            for a in cmd[1:]:
                if a is None:
                    a = height - 1 if cmd[0] == 0xA8 else (0x12 if height == 64 else 0x02)
                args.append(a)
            self.command(cmd[0], *args)
        self.flush(0, self.pages - 1, 0, width - 1)
        self.command(DISPLAY_ON)

    def command(self, *cmd):
        # one command per I2C transaction: control byte 0x00, then the command and its arguments
        self.i2c.writeto(self.address, bytes((0x00,) + cmd))

    def flush(self, page0, page1, col0, col1):
        self.command(COLUMN_ADDR, col0, col1)
        self.command(PAGE_ADDR, page0, page1)
        data = bytearray(1 + (page1 - page0 + 1) * (col1 - col0 + 1))
        data[0] = 0x40
        i = 1
        for page in range(page0, page1 + 1):
            row = page * self.width
            for col in range(col0, col1 + 1):
                data[i] = self.buf[row + col]
                i += 1
        self.i2c.writeto(self.address, data)

    def pages_write(self, page, col, data):
        if page >= self.pages or col >= self.width or col + len(data) > self.width * (self.pages - page):
            raise ValueError("page " + str(page) + " column " + str(col) + " +" + str(len(data)))
        at = page * self.width + col
        self.buf[at : at + len(data)] = data
        end = at + len(data) - 1
        self.flush(page, end // self.width, 0 if end // self.width > page else col,
                   self.width - 1 if end // self.width > page else end % self.width)

    def text(self, row, col, text):
        if row >= self.pages:
            raise ValueError("row " + str(row))
        if col >= self.width:  # docs/bridge.md: column 0..width-1
            raise ValueError("column " + str(col))
        self.fb.fill_rect(col, row * 8, self.width - col, 8, 0)
        self.fb.text(text, col, row * 8, 1)
        self.flush(row, row, 0, self.width - 1)

    def show(self, contrast, on):
        self.command(SET_CONTRAST, contrast)
        self.command(DISPLAY_ON if on else DISPLAY_OFF)

    def off(self):
        self.command(DISPLAY_OFF)


# This file's build, its last line (a file cut short has none): main.py starts the bridge only
# when every file carries its own (docs/bridge.md, "An interrupted update").
BUILD = 4
