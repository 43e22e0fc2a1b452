// Debian's libqrencode (package libqrencode-dev): the QR codes of `ralph-mobile-server pair` and the admin settings'
// "Pair a phone" section. Swift sees it through RalphMobileServer's QRCode wrapper only.
#include <qrencode.h>
