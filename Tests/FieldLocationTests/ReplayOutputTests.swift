import FieldLocationStore
import EnginePlatforms
import LocationAPI
import FieldLocation
import FieldLocationOutput
import Foundation
import NMEA
import Testing

/// `fieldloc replay` output, byte for byte as before issue 17 (the JSON writer with its own number
/// formatting, the framer handing out views of its input): SHA-256 of what the command printed on
/// standard output before the change, per gpsd capture and for the bench stream. Changed since, on
/// purpose: myguide-3100.log and the bench stream's digests, when only epochs with a position began to
/// teach the cycle ender (QUIRKS.md E-12: the first fixes now also carry the GSA after their GGA).
enum ReplayGolden {
    /// `fieldloc replay LOG --json --quiet | sha256sum`, by log name, from the build before issue 17.
    static let json: [String: String] = [
        "GPSmap-76S.log": "a09a8d9cbb61f0c63ce5070c37093be182fe43687642d7a1255b4c5d799a57bf",
        "ac12.log": "ff38ba19de09e81507c470018a04f6542649b934118dfdd289b529561ba6089e",
        "ais-18-27.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais-nmea-type6-fid55.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais-raw-messages.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais_unpack_sixbit.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "april6_2019.log": "a234dd849d604fd216d5c9c7f801f9de131793a914d57f34b919f5ff37e91328",
        "beidou-bd.log": "28b199cf859cf37fa802ab50afcf90a20ecf118e8f0cf9ae01af8e5fbb1ac0f3",
        "blumax-gps009.log": "673652e957b68efeefcd0cb5377063a5c151b83e5837b4bfd24220670b92a9d8",
        "bn-9015.log": "104fcb3563ea888e12515304c723782e387963a75a0b36df916c0f3188d913b3",
        "bt451.log": "eba240f4f3f484dafd54c5e4b52b2f0e85a495fa88a0d7bd4f906a68a96b4007",
        "bu353-glonass.log": "5d68e31a3474e92c2023cbcdfadfe13a25fdc8e5788a4a8733d505b181cd9321",
        "bundg_zeus_9.log": "1eea48082a856cd1691265fd5597a9d153eb0461781be2683737ea1ddb21ca2d",
        "cat-ms352.log": "61d6e1b1c4c08a0b17b8657ce5d5d35a03d4140b2a1e911f8d3451db5f3fd345",
        "ch-4711.log": "588eda692a79543d8667c4284de24ea92a60d1881c97ad011511e769e2755cbc",
        "com-1289.log": "dbb51a1adf52a206fbd616cfae619b9a635dc7c4316ed416ebfc046b0d579028",
        "eXplorist210.log": "d6b1a60128746d08f070565a12e18a102ba208a5c8c453f25cd5d6caf999893f",
        "et-332.log": "bf0930eab7a66f84b878a065a91c631b51c23f7ce83d70d5e52401ba417c6fab",
        "firefly-II.log": "4614c873f37d5550ab81cc61e49d1077cda8b9ceddfafeab469e7bf3edb579cc",
        "furuno_gl_ga.log": "bf611bcc3598868120bc2dd4eed6478f92fd4aa49369cb30591e7bb82b49e352",
        "garmin-10x.log": "b1f5f85311f2960921db173aba355d5780877a17766e3562332e54898d87fb87",
        "garmin15x.log": "7794a5d5882c71042c3d6aa5d86e898b1e58d3f5903430602dffe5f496ada409",
        "garmin17n.log": "e8a4c376486d8b8b67c8a1fbd7c0324723511d9f1de3d25b6a92afaaeba109ee",
        "garmin38.log": "550945c7e747bac28583ed12ec3b5d6c77a06b154ebf9deb68a2652dc3cced4d",
        "garmin48.log": "c8c31474eca38ee4477472dad391d158b115395a44ebe720c4589f04793f4709",
        "gp-320fw-2019-03-28.log": "04d4b66740c63667741f0015db7b5ba24a5e0eb84963e0382e0475c8e2703de2",
        "gp-320fw-2019-04-06-overflow.log": "a53cce1749836f60aa97ce8cf86feffa9bf25a83cb85f41f477b3507a0f4a0f3",
        "gps-360.log": "e2de126b9162337e893276ae2a14f18b49df670217921b9c5e9dbbc89c28ce24",
        "gpsdf.log": "1d39e16e3b20255d5ed25b5ce7801e10f0fa5cfb6fba8492ce72b5fd196bf223",
        "gr601-w.log": "77e0525546b6716bae9e7b581dc90296e1ce3b059ddbf81a59e6e403c317514d",
        "gr8013-w.log": "270f99f8e8cb841c75ab41976ecd8d9ef001c9d0a79edc78bcb572bb0040d417",
        "haicom-305N.log": "d32af36a82be9238056260a6cdbdd14d65036072955e3b9baf3bdf8ccfde8e02",
        "hemi.log": "2656d54ef03448530a9f5981b53bfaf30248b91e41e397b6ca0c162f4785a89b",
        "hp58534a.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "humminbird-M37.log": "d6912cfb22c9fcc3adb2c9a0491b2f520be335422b3283680c97845110157365",
        "isync.log": "8350eab4c48a7d8ddd224282f4c9511b8f89fded5edd04162e57e7cb5f4c407f",
        "jl-micro-jlt.log": "5fca87de6a7b366b6920d515ccc5af97f0cf53ce039e38709e1c1709c2c7a672",
        "magellan315.log": "5c5427b19309f758ccbdf74c0a4feab3460729e689163a4c1b09b2b877ecea55",
        "meinberg-gps164.log": "d8b6d24827e99d3908dcc06712eca8ff3fea9efe4dc1aef91e95a1fb605e804f",
        "mr-350p.log": "fca85729d648fc213d2b8eeba4502b4ac23b8ff85af2d5888fab705018770e60",
        "mt3339.log": "a1468b7d7e5c0517227b77f1b587ac99ca3f20da377dbfa16b1d45d5e3c4925b",
        "mtk-3329.log": "b69ea950c7c34177fb5a17a825f4fe887cec92ec60e92143ee61ec9f9d9c6644",
        "myguide-3100.log": "4f3b7b2dfdd970b030026cc7e0d9d3b68319c4fe55d1dc5063f3ca28fbdd8640",
        "nd-1005.log": "3e07b36a89c3aee564e62ed499e3e810c7e55ead9b8b280e4c72c8427f706835",
        "neo-m8n.log": "f202951488ea16bfb2eebdf344a2d16e7926f92493da0e30b6d2656577ebe8ba",
        "nl402u.log": "160abd910b3997651eb15ca5d694dc86b55be4aee54c19960c94d25ec47df486",
        "nl551e.log": "6a50263e3d09a2012cf4057e882e806c53919413c3a7f52cd3425b754dcb8ec7",
        "nmea-rtk.log": "f1807970f3a81b43ea281eed54a6c405105193bb0bdcd9cc1a822557fe0f5695",
        "nokia-ld-4w.log": "bd2f70496ab05d983c71d47a184193fceabd248d6e82586a493cb668eab0b9b3",
        "pharos-360.log": "ce3ea9ecf78535b6d589c705abdca8f68ff38a9ad84c9068784c672a91e8f51b",
        "polarx2.log": "9c7d766a01a8fc3228c74fabd544a5fdc863adb1e76f02f0dc59b5a23227b2a3",
        "quectel-L70.log": "3839f5ac39daf1852ea76697dc52f02622b05e66ad61d67a3e1bef3ff6d2c22a",
        "quectel-eg25-g-2.log": "b3192404c35627ea52db7ff35a4231c53debcce291d12b79affa95fa4e803dd4",
        "quectel-l76k-binary.log": "40751abe907b3036ec88d2c64b86399672954c97cdf40852f69afd696d7f093d",
        "quectel-l76k-dual.log": "4882c7bb9e978615cd711ea0236af192b8386fa121b0607e9cfa6f9723781f9a",
        "quectel.log": "04bf9f5866a04682f4002d1ab00b9369fc049018f2f1e5f647a57cfff6c39299",
        "quectelLC79D-1.log": "2fc9aff56d57d5f802297e97c616dc3aee55b0b6ebbde647e03cc9ce79ceca25",
        "rgm3800.log": "edfbaa42c6f4c6d84729888de2ad5be80a6fe245ba50c49e649d3ba161c5072a",
        "rst39.log": "95d67a30acfd4d30300c8ec0cb60471818f462740fb89b2ad656279f23d5f5f6",
        "saab-r4.log": "48ebbc203bd9cfb666ec6927e263c069c0e900608541d099ab37fb3c3beb6d8a",
        "sirfstarv-nmea.log": "b0649be8c895a72d65f9a43f74921d921edc6ab0340509394b370e1cbfedecba",
        "skytraq-dgps.log": "e0f606343752ce3885f76a9ccf200dc7bfa3b72363cb1e9223e17d0c532263c3",
        "skytraq-err.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "skytraq-fixB.log": "f1e78c1c2993852467770807274c5a2fe754167194e9e949ecb20af9a48f46b2",
        "skytraq.log": "9acd6ad5f7ae50c2daf999cd2ae3501248a50f94821434ca607f798b5fb33415",
        "sounder.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "st-teseo-liv3f.log": "29a17c679373f464d2b4f1d10dc06fe45d4f3107a9b81d317f2bd50cd89220f8",
        "tcp-test.log": "5b6148730918db441a8a5c6536d638126552e4c8e506cc06d686a25d59090a72",
        "tcp-torture.log": "5b6148730918db441a8a5c6536d638126552e4c8e506cc06d686a25d59090a72",
        "telit-pls83-w.log": "f98f844ea8cb182fc0f4ab7242b43287904e3447f171aff0519fa8bce7203a05",
        "tn200-all.log": "b0564b4e2bf1dcab3a73cf69689a8647c9f00ab5c48049d8d5d3d2d10ca6ab7e",
        "tn204.log": "5f54b3e5f84a92acba9d2b2adcd9bc9f34ae2e537f77bd655b331f1391b52cf4",
        "tnt-revolution.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "tr737A+.log": "c79eb1857afc075a4a489343bcf3d40d11dffed7e1b789a2143b227c3f3090b8",
        "triton400.log": "c392a7a2995e9668509bd80ce8d4a4a7d10b5c2b26d1266689b465e922880a8d",
        "ublox-f9p-hpnmea.log": "90e59f3f3c7bec6d528b900a27841f50684e87c40d22ff920d4a03e59a887af1",
        "ublox-lea-4h.log": "7838de7417bf1235947040ff4ab2e10cb61ed33757214f62117b2aa38291f7d2",
        "ublox-lea-5h.log": "ab2a8bed563ab24d2fbb30c0b57e03f3533d90eae59dd0a5aef1ab2aeb700bf6",
        "ublox-lea-5q.log": "b04604db4e950a77d179435f2b222da3e58e1f94376acba3bf6cc46dc05239d0",
        "ublox-neo-m8l.log": "079f81bf7b021bb2d64bf9327a5000c500c60798249d8c828010ce62b737bd28",
        "ublox-neo-m9n-nmea.log": "0a4253a5ef2f10d75bc8dbf662be61c6f43f1fc07d9755ff1afda5384e253347",
        "ublox-zed-f9p_hpg1.11.log": "ef1f47aceed0edf765343934e7c9addc5196a9092b4860de85bad9c35da23fb5",
        "ublox-zed-f9r.log": "ff5d94b3f1cf89ce4b685f182aa31eac12433cf365c98d86bb188c2a2e458030",
        "ublox8-uniqid-monhw.log": "f880c116986b60b317b1841c39fd69b894930910f29dab960245f42eece066b9",
        "udp-test.log": "5b6148730918db441a8a5c6536d638126552e4c8e506cc06d686a25d59090a72",
        "venus634lp.log": "a6155e6bc7b5559cea3c295f1a3227b06b3c7332265d74f2ad642d700daaca6d",
    ]
    /// `fieldloc replay LOG --quiet | sha256sum` (the text lines), by log name.
    static let text: [String: String] = [
        "GPSmap-76S.log": "3430404d0f262488e4e5eb34e759d1e1a07f768dfdb201aba22e64252d08d8a0",
        "ac12.log": "d0613a4e461978c3563ac57a0608d112282efb161aa514f1c11b37921de7cdbe",
        "ais-18-27.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais-nmea-type6-fid55.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais-raw-messages.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ais_unpack_sixbit.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "april6_2019.log": "efaae04ae36555f1f04090132ef122e219204a40bf8c666950faf2466ac87d5e",
        "beidou-bd.log": "3710a1a6cdf4037225694feabd3638106861f52101b86b7f34df28a7fba092f0",
        "blumax-gps009.log": "cdaeadf590899eddfc5edb6bcf5ded524de3301b508f7db7fd7b231d97430537",
        "bn-9015.log": "c8ec7d9d8f50f6b558fbf240a6710f00777e40053592d4221b8b5cd67673320a",
        "bt451.log": "2d55b1f8285be6e839e575af4ff080283f9f34d338bd7462a8c503845bae835c",
        "bu353-glonass.log": "a787d0b57feb1b65a0eead82bbbb711e6541b7b25f1015efcc2292a71a9a0a7e",
        "bundg_zeus_9.log": "10af18566e056d6919e8e8e0b5166adddfdccb6abf7248f02633335c93ae5d58",
        "cat-ms352.log": "5a8a0edaa5901c862ac74b9665796d969ae44649331d815f43e8c3d0a4c73d95",
        "ch-4711.log": "e535d95dcad97268c0400513c3dae19087d10c76e3aee3182386e8480de8c7fe",
        "com-1289.log": "2fe3c08ff8b22a632d3b186ed162232a8e322c3b3bfdbee72b7b47ad47373a1e",
        "eXplorist210.log": "da611a88d069dd0f4cbba3cdf71e3b5cbc2b82f8dbfe9bdc67c8c09bb85f4509",
        "et-332.log": "ce732098fec672346942d0bd234158338bbc0473640e3807f7a734fb19d85c06",
        "firefly-II.log": "31184d645e654ef2519f0265ae38515d6e1a7b574343466a4e95d99754d201c1",
        "furuno_gl_ga.log": "ef2ce7cccbf6eab5768cca42075e3e54f406ee36ae2470ae8064521d99efa6da",
        "garmin-10x.log": "e45b88ef214d9642824b687d30ff6ea18f49628e59de92e38e56fa90065131bf",
        "garmin15x.log": "96bf751f7f4260c16352cfed660d63985449b256bfe5476e225264442bc2b02f",
        "garmin17n.log": "80179ae0e7b3f0ca77721f26c5dc0659d3acc5cae1310cce73418c6e33966490",
        "garmin38.log": "cea2c4ee904cc456891da916484310ec096f910397e8e30d50b497472cee63a2",
        "garmin48.log": "7713fbb45fad2e7107f750aaf42784cd0d4e530f939bbd555ebea65f1289efb7",
        "gp-320fw-2019-03-28.log": "3873f82b86489fa86dec344dd069c4101c1cf0c0aebe93fda15c637b5b16fe97",
        "gp-320fw-2019-04-06-overflow.log": "5041b3da5d30f795255a0ee1a7bb124197ae0621eb9fd8090a32b9463dbd4bf8",
        "gps-360.log": "6c7f9aeb9c00037ee8506f91daf2500083aa8724218f21886aa5f6dd8df7ee4c",
        "gpsdf.log": "caf335494e9e1ca16c19c1f688d4498800dd659cffbe4fbfa48ab44dab7e6eeb",
        "gr601-w.log": "da4c9f8e58e891ed66bbb4ab5ae2e4fd3fd4b1b4f2afce4e48c36ac2bd3b87a9",
        "gr8013-w.log": "a144dc5bf397124a031b6c87c1043c2155236e743da7145f09a2c89ecba29054",
        "haicom-305N.log": "b0e178cfec5a3748ed67697c7bbba91acc6c6d8e0b85bcf1e2c637a63cd13dd1",
        "hemi.log": "129791d5c3767b9286cd2437d2041f49f148ad5d2eeb279d90522522890dc4fd",
        "hp58534a.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "humminbird-M37.log": "f6fbe14d40872b9d6e5991dafbe754906b5323cc648a8b63979ba7d02bd9b3bc",
        "isync.log": "f75a024367e1a80f32f291dd904ef41f788856680554442472f9474e86aff53b",
        "jl-micro-jlt.log": "640659ace8ff57e71dc2d8e1b7cc1162f8547c0edadce472b76d4e8c0ff6ba22",
        "magellan315.log": "4231bd8bd6d7254caa735ab7d971bb8dda47498da92d86dc1991f452fe9b5b24",
        "meinberg-gps164.log": "bf0cabdae84488007454054756511b252c7ed3b6ce561bfb7c4e9d8990ab21ee",
        "mr-350p.log": "0711fa98aa7f3634c5aec2f26c0f94717a2153ca8e5536d2f0f23e08af1630a0",
        "mt3339.log": "ce63545056da3cf6eba695b0da9cf9bc5434b98ad5ce524705f3576d8993525b",
        "mtk-3329.log": "1c2819526b740639f998076e0cd54962006325af2a2cb0a3fb8303f07c9a3e86",
        "myguide-3100.log": "cc758a507e68c6912e93e70ab9bd4661f29a0b98a4588eb018b1f91e6e81661d",
        "nd-1005.log": "1e3719eaea39aedfc0afedfc6b6203cf53a98bf5b452703d8bfb64c6ce182e2c",
        "neo-m8n.log": "4c556c85b0549c70fe3a47df93201e4febefd4747ffc214612205173c07a5c91",
        "nl402u.log": "ad496df74a61df333841651ce04a6a67d98ccd2992ef2cc5731919953e1f86b5",
        "nl551e.log": "7bd3fcf2a1eff3da34ad12b6dc0d89aae9f2ce5d3d6ad97dc1266c20466a80cc",
        "nmea-rtk.log": "e1a6ebeadadea47a0732cf0fb3718e0569f97ba213f61519609a0b22b8fec6a2",
        "nokia-ld-4w.log": "1d1149e51024b5991c78227a8d0bf0c34ef7a55809382e4441a466ff31220c6b",
        "pharos-360.log": "7fe7f3ab41aaa94401e47196fafdcc45b2bd571140e5f8912b03a601c9d17154",
        "polarx2.log": "6f9f96dd8bdb27f6e2da073859d51eda30a6382aae10e6fc7036a48e2de57bc7",
        "quectel-L70.log": "e5b68d4379bdb325050c509920fc0e8381eacc3be43373f271807a1441f7df20",
        "quectel-eg25-g-2.log": "49bf123393f7788fe756fab6b9deec046995b7c259dcbd0134d4180b2e04a6be",
        "quectel-l76k-binary.log": "ff469f3894a75dd68495200958348aa7150ec80f81075cdeaa4421de580c7c76",
        "quectel-l76k-dual.log": "8c11d1724ff66b4b10b775677608a7415d0af878a7b7db0251afd6b31e213935",
        "quectel.log": "aa7cb9c40919166048dc360ab953ccc6d08d26e413ff7be0cb275daa4b0226a0",
        "quectelLC79D-1.log": "83b44c5fcbb66ea8f4f68bfadd82dd24ba5e8e536282248c9e834265715b945b",
        "rgm3800.log": "d2cbcd1349e3bce8e7a225eaffd13f4b8da3051b62f20b5f93be1b4fc9b92d72",
        "rst39.log": "b1a373e865dde0b0ddbc0fbb63c9546b356ded35e57e82ea8778b8c30da38424",
        "saab-r4.log": "cf0b0af06f8b78505fa36a0d85d896c04a97612b3619fa7ff15167714585c888",
        "sirfstarv-nmea.log": "653997db5c31ca9b23f0747617cd5e0eb8f9409951d5e7815260799205ac9ed5",
        "skytraq-dgps.log": "159edb6e045389b688bb081962fb7bfc1f3a544d5616ef5ce0470b5c9de50ba3",
        "skytraq-err.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "skytraq-fixB.log": "18bc0ad83bf0496c4334a8e72fa788085d5069ae7cad21c9d018be3456fca36c",
        "skytraq.log": "5f63593a74d11c927a7a4e56a007d4e4fdfcb2c77f92d343a4dde1f5fa9c3532",
        "sounder.log": "37e54c471bdb9d710f901cece5534d97079d70fd5be28c254d788fefbd3f8c41",
        "st-teseo-liv3f.log": "76e8c7280668eda942e9fa2a48250492e4071163c0666be0ce72e89c32c710f9",
        "tcp-test.log": "464eb0f100022c0bbb0832de5297baa03aed81b0ec56e9de3be3809a55c0778f",
        "tcp-torture.log": "464eb0f100022c0bbb0832de5297baa03aed81b0ec56e9de3be3809a55c0778f",
        "telit-pls83-w.log": "bc97e93156c46ed83c51e316b40a94dac1f134163eb30779933558f54d5d1033",
        "tn200-all.log": "29ca740d44fdb5df6c20dedc03275354ed6aba7785eee16c6a5eca7a3a5f0638",
        "tn204.log": "0d92dbfe0130de9e76aac396b0ab2fc161031ba7da81a3e47faac1664ced7481",
        "tnt-revolution.log": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "tr737A+.log": "e54a1dc760ec3ac703da90ebe55fc850d0a51c652f2aa7840d223cf0c3c3d4a8",
        "triton400.log": "1020368470b40c3d6b061c30b70a07434334f3a4a9808375dfaffbc1d3847973",
        "ublox-f9p-hpnmea.log": "20d62b351b795a27e2c34fb8981899d5421fab639c1d3a3d002580d1267e0883",
        "ublox-lea-4h.log": "a32ddf4385417abc03218114f1b8d63dd1f1120ea22813d734e6b2978f02b155",
        "ublox-lea-5h.log": "a1d0b13addc0a78fa8d8f1e85c517197e9b4eb388acb8b1c5a2b88c7ff6446f6",
        "ublox-lea-5q.log": "7c35ed7049b9790a3aa649549132149ad3c08ed04fd5d7dc34e9862aedf5878f",
        "ublox-neo-m8l.log": "f34b35668b49d19fa66702642acb4fad16f8b19e160c6a3bdacdfed112f86a74",
        "ublox-neo-m9n-nmea.log": "bb7bd7b2d45b024173e942973e93e51f0f356ddd6f7e5b9a45d885d0b8746aa4",
        "ublox-zed-f9p_hpg1.11.log": "c0a23805c1b97283733f0c0aebd74d5468f27e56ec4291102efbeaa657b7afba",
        "ublox-zed-f9r.log": "5e6259b11a2dcf8b445d5409417ed4f30924628fe56e4450a58bfa85cb2dffd4",
        "ublox8-uniqid-monhw.log": "d756c6a6519a8eebdeefb36e55afda5078d6f98ba9dbbee17204e23046a19b8d",
        "udp-test.log": "464eb0f100022c0bbb0832de5297baa03aed81b0ec56e9de3be3809a55c0778f",
        "venus634lp.log": "e1661933d4c09919381c338143fb5ffe62de51c93a3bb4007203be2fe436fcb2",
    ]
    /// `fieldloc replay mixed.nmea --json --quiet | sha256sum` and without `--json`.
    static let benchJSON = "0ee2af41ad21f8e6d0c9036339db97a76b4a5bd7ba8cce61e81b7e49d93f061b"
    static let benchText = "0939ba144fc08ef449fa5d8b6a153d5e72186055ca985ce28f248341f289af9f"

    static var gpsdFolder: URL? {
        guard let shared = Conformance.shared else { return nil }
        return shared.appendingPathComponent("corpus/gpsd")
    }

    static var bench: URL? {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = package.appendingPathComponent("../shared/corpus/bench/mixed.nmea").standardized
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Every `.log` of the gpsd corpus.
    static var logs: [String] {
        guard let folder = gpsdFolder else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted()
    }

    /// The SHA-256 of what `fieldloc replay` prints for `path` (it prints through the same function).
    /// The JSON lines' `ept` members (the fix's measured time error, added since the digests were
    /// recorded; `TimeQualityTests` checks their values) are taken out first, so the rest of every
    /// line must still be byte for byte what it was.
    static func digest(_ path: String, json: Bool) throws -> String {
        var output: [UInt8] = []
        let writer = FixJSONWriter(capacity: 8_192) { bytes in output.append(contentsOf: bytes) }
        try LogReplay(path: path).print(to: writer, json: json)
        writer.flush()
        var hash = SHA256()
        hash.update(json ? withoutTimeError(output) : output)
        return hash.finish()
    }

    /// `bytes` without any `,"ept":NUMBER` member.
    static func withoutTimeError(_ bytes: [UInt8]) -> [UInt8] {
        let key = Array(",\"ept\":".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == key[0], i + key.count <= bytes.count, bytes[i..<(i + key.count)].elementsEqual(key) {
                i += key.count
                while i < bytes.count, "0123456789.eE+-".utf8.contains(bytes[i]) { i += 1 }
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}

@Suite("replay output as before", .enabled(if: ReplayGolden.gpsdFolder != nil, "../shared/corpus/gpsd is not beside the package"))
struct ReplayOutputGoldenTests {
    @Test("every gpsd capture replays to the same JSON and text bytes as before", arguments: ReplayGolden.logs)
    func capture(_ name: String) throws {
        guard let folder = ReplayGolden.gpsdFolder else { return }
        let path = folder.appendingPathComponent(name).path
        let json = try ReplayGolden.digest(path, json: true)
        #expect(json == ReplayGolden.json[name], "\(name): JSON output changed")
        let text = try ReplayGolden.digest(path, json: false)
        #expect(text == ReplayGolden.text[name], "\(name): text output changed")
    }

    @Test("every capture of the corpus has its recorded digests")
    func allRecorded() {
        let logs = ReplayGolden.logs
        #expect(logs.count >= 80)
        #expect(Set(logs) == Set(ReplayGolden.json.keys))
        #expect(Set(logs) == Set(ReplayGolden.text.keys))
    }

    @Test("the bench stream (377,460 sentences) replays to the same JSON and text bytes as before",
          .enabled(if: ReplayGolden.bench != nil, "../shared/corpus/bench/mixed.nmea is not beside the package"))
    func bench() throws {
        guard let path = ReplayGolden.bench?.path else { return }
        #expect(try ReplayGolden.digest(path, json: true) == ReplayGolden.benchJSON)
        #expect(try ReplayGolden.digest(path, json: false) == ReplayGolden.benchText)
    }
}
